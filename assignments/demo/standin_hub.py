"""A stand-in for the Hugging Face hub: tiny models and small datasets written into a local cache.

The release notebooks load checkpoints with ``from_pretrained("<id>")`` and datasets with
``load_dataset("<id>", ...)``. With ``HF_HUB_OFFLINE=1`` and ``HF_DATASETS_OFFLINE=1`` both libraries
answer those calls from their caches, so a cache filled here lets the notebooks' online branch run
unchanged on a machine without network. Nothing in the notebooks knows about this module.

How each library resolves an offline load (checked on transformers 4.57 / 5.x, datasets 4.0 / 5.x):

* models and tokenizers go through huggingface_hub's cache, ``$HF_HUB_CACHE/models--<org>--<name>/``,
  with the files under ``snapshots/<commit>/`` and the commit written in ``refs/main``;
* datasets, when the hub cannot be asked, fall back to their own cache of prepared datasets
  (the ``cache`` packaged builder): ``$HF_DATASETS_CACHE/<org>___<name>/<config>/<version>/<hash>/``
  holding ``dataset_info.json`` and one Arrow stream file per split, ``<name>-<split>.arrow``.

Schemas (splits, columns, feature types, label names) follow each dataset's card and its
``dataset_info`` on the hub: stanfordnlp/imdb (config plain_text), nyu-mll/glue (config sst2),
Salesforce/wikitext (config wikitext-2-raw-v1), cornell-movie-review-data/rotten_tomatoes (default).
"""

from __future__ import annotations

import argparse
import hashlib
import random
from dataclasses import dataclass
from pathlib import Path

# Environment variables that point both libraries at a cache and keep them off the network.
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def cache_env(root: Path) -> dict[str, str]:
    """The environment under which a process reads the stand-in hub written at `root`."""
    root = Path(root)
    return {
        "HF_HOME": str(root),
        "HF_HUB_CACHE": str(root / "hub"),
        "HF_DATASETS_CACHE": str(root / "datasets"),
        **OFFLINE_ENV,
    }


@dataclass(frozen=True)
class Checkpoint:
    repo_id: str
    pickle_weights: bool = False  # the real repository ships only pytorch_model.bin
    kind: str = "bert"  # "bert": BertModel + WordPiece; "clip": CLIPModel + CLIP processor


@dataclass(frozen=True)
class DatasetSpec:
    repo_id: str
    config: str
    splits: dict  # split name -> number of examples served
    kind: str  # which text generator and schema


# Every id the release notebooks load. A tiny model stands in for each checkpoint.
CHECKPOINTS = (
    Checkpoint("google-bert/bert-base-uncased"),
    Checkpoint("google/bert_uncased_L-4_H-256_A-4", pickle_weights=True),
    Checkpoint("nlpaueb/legal-bert-small-uncased", pickle_weights=True),
    Checkpoint("openai/clip-vit-base-patch32", kind="clip"),
)
DATASETS = (
    DatasetSpec("stanfordnlp/imdb", "plain_text", {"train": 96, "test": 64, "unsupervised": 16}, "review"),
    DatasetSpec("nyu-mll/glue", "sst2", {"train": 96, "validation": 48, "test": 16}, "sst2"),
    DatasetSpec("Salesforce/wikitext", "wikitext-2-raw-v1", {"test": 40, "train": 400, "validation": 40}, "wikitext"),
    DatasetSpec(
        "cornell-movie-review-data/rotten_tomatoes", "default", {"train": 96, "validation": 48, "test": 16}, "review"
    ),
)

_GOOD = "good great wonderful charming clever moving brilliant lovely".split()
_BAD = "bad dull boring awful clumsy tedious weak messy".split()
_NOUNS = "movie film plot acting ending script story music cast".split()


def _sentence(rng: random.Random, positive: bool) -> str:
    word = rng.choice(_GOOD if positive else _BAD)
    negation = rng.choice(["", " n't", " not"]) if rng.random() < 0.3 else ""
    return f"the {rng.choice(_NOUNS)} was{negation} really {word} ."


def _texts(kind: str, n: int, seed: int) -> tuple[list[str], list[int]]:
    """n texts in the style of the dataset (WikiText: headings, blank lines, split contractions)."""
    rng = random.Random(seed)
    texts, labels = [], []
    for i in range(n):
        label = rng.randrange(2)
        if kind == "wikitext":
            line = (
                ""
                if i % 4 == 0
                else (
                    " = The Film = \n"
                    if i % 4 == 1
                    else " " + " ".join(_sentence(rng, bool(label)) for _ in range(3)) + " \n"
                )
            )
            texts.append(line)
        elif kind == "review":
            # IMDB-like reviews, with a contraction kept whole as review sites write it
            body = " ".join(_sentence(rng, bool(label)).replace(" n't", "n't") for _ in range(rng.randint(2, 6)))
            texts.append(body.replace("was really", "doesn't feel", 1) if rng.random() < 0.2 else body)
        else:
            texts.append(_sentence(rng, bool(label)).replace(" n't", "n't") + " ")
        labels.append(label)
    return texts, labels


def _features(kind: str):
    import datasets

    if kind == "wikitext":
        return datasets.Features({"text": datasets.Value("string")})
    if kind == "sst2":
        return datasets.Features(
            {
                "sentence": datasets.Value("string"),
                "label": datasets.ClassLabel(names=["negative", "positive"]),
                "idx": datasets.Value("int32"),
            }
        )
    return datasets.Features({"text": datasets.Value("string"), "label": datasets.ClassLabel(names=["neg", "pos"])})


def _split_columns(kind: str, split: str, n: int, seed: int) -> dict:
    texts, labels = _texts(kind, n, seed)
    if kind == "wikitext":
        return {"text": texts}
    # unlabelled and test splits carry label -1 on the hub (IMDB unsupervised, GLUE test)
    if split in ("unsupervised",) or (kind == "sst2" and split == "test"):
        labels = [-1] * n
    if kind == "sst2":
        return {"sentence": texts, "label": labels, "idx": list(range(n))}
    return {"text": texts, "label": labels}


def write_dataset(datasets_cache: Path, spec: DatasetSpec) -> Path:
    """Write `spec` into datasets' own cache in the layout its offline ``cache`` builder reads."""
    import datasets
    import pyarrow as pa

    namespace, name = spec.repo_id.split("/")
    features = _features(spec.kind)
    folder = Path(datasets_cache) / f"{namespace}___{name}" / spec.config / "0.0.0" / "standin"
    folder.mkdir(parents=True, exist_ok=True)
    splits = datasets.SplitDict(dataset_name=name)
    for seed, (split, n) in enumerate(spec.splits.items()):
        table = datasets.Dataset.from_dict(_split_columns(spec.kind, split, n, seed), features=features).data.table
        with (
            pa.OSFile(str(folder / f"{name}-{split}.arrow"), "wb") as sink,
            pa.ipc.new_stream(sink, table.schema) as writer,
        ):
            writer.write_table(table)
        splits.add(datasets.SplitInfo(name=split, num_examples=n, num_bytes=table.nbytes, dataset_name=name))
    info = datasets.DatasetInfo(
        description="stand-in",
        features=features,
        config_name=spec.config,
        dataset_name=name,
        builder_name="parquet",
        version="0.0.0",
        splits=splits,
    )
    info.write_to_directory(str(folder))
    return folder


def _vocabulary() -> list[str]:
    """Specials, single characters (so WordPiece never falls back to [UNK] on our texts) and words."""
    words = set()
    for spec in DATASETS:
        for seed, n in enumerate(spec.splits.values()):
            for text in _texts(spec.kind, n, seed)[0]:
                words.update(text.lower().replace("'", " ' ").split())
    chars = sorted({c for w in words for c in w} | set("abcdefghijklmnopqrstuvwxyz0123456789.,!?'-=\""))
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *chars, *[f"##{c}" for c in chars], *sorted(words)]
    return list(dict.fromkeys(tokens))  # a single-letter word is also a character: one id each


def _bert_tokenizer(vocabulary: list[str]):
    """A lower-casing WordPiece tokenizer over `vocabulary`, wrapped as transformers' BertTokenizerFast.

    Built from a tokenizers object rather than a vocab.txt path: the constructor's file arguments differ
    between transformers 4 and 5, the tokenizer_object argument does not."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import BertTokenizerFast

    ids = {token: i for i, token in enumerate(vocabulary)}
    wordpiece = Tokenizer(models.WordPiece(vocab=ids, unk_token="[UNK]"))
    wordpiece.normalizer = normalizers.BertNormalizer(lowercase=True)
    wordpiece.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wordpiece.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", ids["[CLS]"]), ("[SEP]", ids["[SEP]"])],
    )
    wordpiece.decoder = decoders.WordPiece()
    return BertTokenizerFast(
        tokenizer_object=wordpiece,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        do_lower_case=True,
    )


def _clip_tokenizer():
    """A byte-level BPE tokenizer shaped like CLIP's, wrapped as transformers' CLIPTokenizerFast.

    Its vocabulary is the 256 byte symbols, each also with CLIP's end-of-word mark ``</w>``, plus CLIP's
    two special tokens; with no merges, every word is spelled out symbol by symbol. The real tokenizer
    has 49,408 entries learned from web captions; the notebook only needs one that CLIPProcessor loads
    and that ends every caption with ``<|endoftext|>``, where CLIP's text model pools."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import CLIPTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    tokens = alphabet + [symbol + "</w>" for symbol in alphabet] + ["<|startoftext|>", "<|endoftext|>"]
    ids = {token: i for i, token in enumerate(tokens)}
    bpe = Tokenizer(models.BPE(vocab=ids, merges=[], end_of_word_suffix="</w>", unk_token="<|endoftext|>"))
    bpe.normalizer = normalizers.Sequence(
        [normalizers.NFC(), normalizers.Replace(Regex(r"\s+"), " "), normalizers.Lowercase()]
    )
    # transformers 4 checks that the pre-tokenizer is a Sequence, as CLIP's own is
    bpe.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(r"[a-z]+|[0-9]|[^\sa-z0-9]+"), behavior="removed", invert=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False),
        ]
    )
    bpe.post_processor = processors.TemplateProcessing(
        single="<|startoftext|> $A <|endoftext|>",
        special_tokens=[("<|startoftext|>", ids["<|startoftext|>"]), ("<|endoftext|>", ids["<|endoftext|>"])],
    )
    bpe.decoder = decoders.ByteLevel()
    return CLIPTokenizerFast(
        tokenizer_object=bpe,
        bos_token="<|startoftext|>",
        eos_token="<|endoftext|>",
        unk_token="<|endoftext|>",
        pad_token="<|endoftext|>",
    )


def _snapshot(hub_cache: Path, repo_id: str) -> Path:
    """The snapshot folder of `repo_id` in the hub cache, with refs/main pointing at it."""
    org, name = repo_id.split("/")
    commit = hashlib.sha1(repo_id.encode()).hexdigest()
    repo = Path(hub_cache) / f"models--{org}--{name}"
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text(commit)
    return snapshot


def _write_bert(snapshot: Path, checkpoint: Checkpoint) -> None:
    """A tiny random BERT and a real WordPiece tokenizer."""
    import torch
    from transformers import BertConfig, BertModel

    tokenizer = _bert_tokenizer(_vocabulary())
    tokenizer.save_pretrained(str(snapshot))
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
    )
    BertModel(config).save_pretrained(str(snapshot), safe_serialization=not checkpoint.pickle_weights)


def _write_clip(snapshot: Path) -> None:
    """A tiny random CLIP with the real processor's image settings (224-pixel crops) and a CLIP-shaped tokenizer."""
    import torch
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel, CLIPProcessor

    tokenizer = _clip_tokenizer()
    CLIPProcessor(image_processor=CLIPImageProcessor(), tokenizer=tokenizer).save_pretrained(str(snapshot))
    torch.manual_seed(0)
    config = CLIPConfig(
        text_config=dict(
            vocab_size=len(tokenizer),
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=2,
            max_position_embeddings=77,
            pad_token_id=tokenizer.pad_token_id,
            bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id,
        ),
        vision_config=dict(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=2,
            image_size=224,
            patch_size=32,
        ),
        projection_dim=16,
    )
    CLIPModel(config).save_pretrained(str(snapshot))


def write_checkpoint(hub_cache: Path, checkpoint: Checkpoint) -> Path:
    """Save a tiny random model and a working tokenizer/processor as the snapshot of `checkpoint`."""
    snapshot = _snapshot(hub_cache, checkpoint.repo_id)
    if checkpoint.kind == "clip":
        _write_clip(snapshot)
    else:
        _write_bert(snapshot, checkpoint)
    return snapshot


def build(root: Path) -> dict[str, str]:
    """Write every checkpoint and dataset the notebooks use under `root`; return the environment to read it."""
    env = cache_env(root)
    for checkpoint in CHECKPOINTS:
        write_checkpoint(Path(env["HF_HUB_CACHE"]), checkpoint)
    for spec in DATASETS:
        write_dataset(Path(env["HF_DATASETS_CACHE"]), spec)
    return env


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Write the stand-in hub (tiny models, small datasets) into a folder.")
    parser.add_argument("directory", type=Path)
    args = parser.parse_args(argv)
    env = build(args.directory)
    print("stand-in hub written; to use it:")
    for key, value in env.items():
        print(f"  export {key}={value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
