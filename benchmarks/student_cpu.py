"""Benchmark of the students' CPU path: what each notebook's long parts cost on a Colab runtime without a GPU.

Colab's CPU runtime has 2 cores and about 12 GB of memory. Each notebook detects a runtime without a GPU
and switches its long parts to a smaller configuration (the notebook says which in one printed line);
this script measures the steps those parts are made of, at the real model sizes, and projects each
configuration's time and memory. It also projects the full (GPU-sized) configuration on the same CPU,
which is why the smaller one exists.

Real code paths with random weights, nothing downloaded (so accuracy is not measured): transformers'
BertModel built from the checkpoints' real configurations (student_gpu.py's), transfer_lm's language model
mirrored as `nn.Embedding` + `nn.TransformerEncoder` + `nn.Linear` at the WikiText-2 sizes. Step times
are measured on a few batches drawn like the real data and scaled by FLOPs (BERT) or by step count.

    python benchmarks/student_cpu.py                 # torch with 2 threads, like Colab's CPU runtime
    python benchmarks/student_cpu.py --samples 2 --out figures.json

Figures go to benchmarks/README.md with the machine and its load (a busy machine inflates wall time:
the script also prints the process's CPU seconds over the thread count, which a busy machine inflates
less).
"""

import argparse
import json
import math
import os
import platform
import random
import sys
import time

import torch
import torch.nn as nn
from transformers import BertConfig, BertModel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from student_gpu import (
    BERT_BASE,
    BERT_MINI,
    IMDB_WORDS,
    SST2_WORDS,
    Classifier,  # noqa: E402
    GRUHead,
    bert_flops,
    draw_lengths,
    host_peak_bytes,
    make_batches,
    tensors,
)

# ----------------------------------------------------------------------------------------------------
# The notebooks' CPU configurations (mirrored, not imported: each notebook is the one place its
# configuration is decided; keep these equal to the cells named).
# transformers.ipynb, cells `load_data_and_bert` and `tokenize_and_split` on a runtime without a GPU:
# 1,600 of IMDB's 25,000 training reviews (320 of them become the validation set) and 800 test
# reviews, truncated to 128 tokens; cell `train_sentiment`: 5 epochs of the GRU head on cached features.
SENTIMENT_CPU = dict(
    n_reviews=1_600,
    valid_share=0.2,
    n_test=800,
    max_len=128,
    batch_size=64,
    epochs=5,
    hidden_dim=256,
    n_layers=2,
    dropout=0.25,
)
SENTIMENT_GPU = dict(
    n_reviews=25_000,
    valid_share=0.2,
    n_test=25_000,
    max_len=256,
    batch_size=64,
    epochs=5,
    hidden_dim=256,
    n_layers=2,
    dropout=0.25,
)
# rnn_attention.ipynb, cells `bert_data`/`bert_training` (unchanged on a CPU: BERT-mini is small) and
# `corpus_comparison` (the same fine-tuning for BERT-mini and legal-bert-small).
FINETUNE = dict(n_train=4_000, n_valid=872, max_len=64, batch_size=32, epochs=3)
LEGAL_SMALL = dict(
    vocab_size=30522,
    hidden_size=512,
    num_hidden_layers=6,
    num_attention_heads=8,
    intermediate_size=2048,
    max_position_embeddings=512,
    type_vocab_size=2,
)
# transfer_lm.ipynb, cell `pretrain_run` with WikiText-2 (on a CPU runtime: 4,800 windows drawn from the whole corpus, 2 epochs) (vocabulary of the 20,000 most frequent words
# plus 3 specials, about 2.1 million training tokens in windows of 64), and cell `transfer_run`
# (Rotten Tomatoes: 8,530 training and 1,066 validation reviews, 64 tokens, two models).
LM = dict(ntoken=20_003, nhid=200, nhead=2, nlayers=2, seq_len=64, batch_size=32, train_tokens=2_100_000)
LM_GPU = dict(epochs=3, max_windows=None)
LM_CPU = dict(epochs=2, max_windows=4_800)
TRANSFER = dict(n_train=8_530, n_valid=1_066, max_len=64, batch_size=32, epochs=4, models=2)


class LanguageModel(nn.Module):
    """transfer_lm's Model at its WikiText-2 size: embedding (scaled), sinusoids, encoder layers, a head."""

    def __init__(self, ntoken, nhid, nhead, nlayers, nclasses):
        super().__init__()
        self.nhid = nhid
        self.embedding = nn.Embedding(ntoken, nhid)
        layer = nn.TransformerEncoderLayer(nhid, nhead, dim_feedforward=nhid, dropout=0.2, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.decoder = nn.Linear(nhid, nclasses)

    def forward(self, ids, mask):
        return self.decoder(self.encoder(self.embedding(ids) * math.sqrt(self.nhid), mask=mask, is_causal=True))


# torch's thread count, set once by main(): CPU seconds over it estimate the wall time on an idle machine.
THREADS = [2]


class Clock:
    """Wall seconds and this process's CPU seconds over one block."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def bert_seconds_per_flop(bert, batches):
    """Forward seconds per FLOP of `bert` (eval, no_grad) over `batches`, after one untimed batch."""
    bert.eval()
    with torch.no_grad():
        rows, width = batches[0]
        bert(*tensors(rows, width, bert.config.vocab_size, torch.device("cpu")))
        flops = 0
        with Clock() as clock:
            for rows, width in batches:
                ids, mask = tensors(rows, width, bert.config.vocab_size, torch.device("cpu"))
                bert(input_ids=ids, attention_mask=mask)
                flops += bert_flops(bert.config, rows, width)
    return clock, flops


def sentiment(config, samples, rng, bert_config=BERT_BASE):
    """transformers Part 3: cache BERT-base features of train and valid, train the GRU head, test pass."""
    bert = BertModel(BertConfig(**bert_config))
    n_test = config["n_test"]
    lengths = draw_lengths(config["n_reviews"] + n_test, IMDB_WORDS, IMDB_WORDS["tokens_per_word"], rng)
    cached, test = lengths[: config["n_reviews"]], lengths[config["n_reviews"] :]
    cache_batches = make_batches(cached, config["batch_size"], config["max_len"], "sorted", rng)
    test_batches = make_batches(test, config["batch_size"], config["max_len"], "shuffled", rng)
    sample = rng.sample(cache_batches, min(samples, len(cache_batches)))
    clock, flops = bert_seconds_per_flop(bert, sample)
    per_flop_wall, per_flop_cpu = clock.wall / flops, clock.cpu / flops
    cache_flops = sum(bert_flops(bert.config, rows, width) for rows, width in cache_batches)
    test_flops = sum(bert_flops(bert.config, rows, width) for rows, width in test_batches)
    tokens = sum(min(n, config["max_len"]) for n in cached)
    cache_bytes = tokens * bert_config["hidden_size"] * 4  # float32 on a CPU
    # The head's epoch: measured on a slice of random features, scaled by tokens.
    head = GRUHead(bert_config["hidden_size"], config["hidden_dim"], config["n_layers"], config["dropout"])
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-3)
    slice_rows = [min(n, config["max_len"]) for n in cached[: 4 * config["batch_size"]]]
    items = [torch.randn(n, bert_config["hidden_size"]) for n in slice_rows]
    with Clock() as head_clock:
        for start in range(0, len(items), config["batch_size"]):
            chunk = items[start : start + config["batch_size"]]
            width = max(f.shape[0] for f in chunk)
            features = torch.zeros(len(chunk), width, bert_config["hidden_size"])
            mask = torch.zeros(len(chunk), width, dtype=torch.long)
            for r, f in enumerate(chunk):
                features[r, : f.shape[0]], mask[r, : f.shape[0]] = f, 1
            loss = nn.functional.binary_cross_entropy_with_logits(
                head(features, mask).squeeze(1), torch.randint(0, 2, (len(chunk),)).float()
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    head_scale = tokens / sum(slice_rows) * config["epochs"]
    return {
        "bert_forward_seconds_per_review": clock.wall / sum(len(rows) for rows, _ in sample),
        "cache_minutes": cache_flops * per_flop_wall / 60,
        "head_training_minutes": head_clock.wall * head_scale / 60,
        "test_minutes": test_flops * per_flop_wall / 60,
        "total_minutes": (cache_flops + test_flops) * per_flop_wall / 60 + head_clock.wall * head_scale / 60,
        "total_minutes_from_cpu_time": ((cache_flops + test_flops) * per_flop_cpu + head_clock.cpu * head_scale)
        / THREADS[0]
        / 60,
        "cache_gib": cache_bytes / 2**30,
    }


def finetune(bert_config, samples, rng, frozen=False):
    """Minutes of rnn_attention's train_classifier (3 epochs over 4,000 SST-2 sentences) and evaluation."""
    model = Classifier(BertConfig(**bert_config))
    if frozen:
        for p in model.bert.parameters():
            p.requires_grad_(False)
    lengths = draw_lengths(FINETUNE["n_train"], SST2_WORDS["train"], SST2_WORDS["tokens_per_word"], rng)
    batches = make_batches(lengths, FINETUNE["batch_size"], FINETUNE["max_len"], "shuffled", rng)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-5)
    model.train()
    sample = rng.sample(batches, min(samples + 1, len(batches)))
    steps = 0
    for i, (rows, width) in enumerate(sample):
        if i == 1:
            clock = Clock().__enter__()
        ids, mask = tensors(rows, width, bert_config["vocab_size"], torch.device("cpu"))
        loss = model(ids, mask, torch.randint(0, 2, (len(rows),)))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        steps += i >= 1
    clock.__exit__()
    total_steps = len(batches) * FINETUNE["epochs"]
    return {
        "seconds_per_step": clock.wall / max(steps, 1),
        "minutes": clock.wall / max(steps, 1) * total_steps / 60,
        "minutes_from_cpu_time": clock.cpu / THREADS[0] / max(steps, 1) * total_steps / 60,
    }


def language_model(config, samples, LM=LM):
    """transfer_lm: pre-training minutes for `config`, and the transfer run's minutes (two models)."""
    torch.manual_seed(0)
    lm = LanguageModel(LM["ntoken"], LM["nhid"], LM["nhead"], LM["nlayers"], LM["ntoken"])
    optimizer = torch.optim.Adam(lm.parameters(), lr=1e-3)
    mask = nn.Transformer.generate_square_subsequent_mask(LM["seq_len"])
    lm.train()

    def step(model, opt, targets_per_row):
        ids = torch.randint(3, LM["ntoken"], (LM["batch_size"], LM["seq_len"]))
        out = model(ids, mask)
        if targets_per_row:  # the classifier reads one position per review
            out = out[:, -1]
        target = torch.randint(0, out.shape[-1], out.shape[:-1])
        loss = nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), target.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()

    step(lm, optimizer, False)
    with Clock() as clock:
        for _ in range(samples):
            step(lm, optimizer, False)
    per_step = clock.wall / samples
    windows = LM["train_tokens"] // LM["seq_len"]
    if config["max_windows"]:
        windows = min(windows, config["max_windows"])
    pretrain_steps = math.ceil(windows / LM["batch_size"]) * config["epochs"]
    clf = LanguageModel(LM["ntoken"], LM["nhid"], LM["nhead"], LM["nlayers"], 2).train()
    clf_opt = torch.optim.Adam(clf.parameters(), lr=2e-4)
    step(clf, clf_opt, True)
    with Clock() as clf_clock:
        for _ in range(samples):
            step(clf, clf_opt, True)
    clf_steps = math.ceil(TRANSFER["n_train"] / TRANSFER["batch_size"]) * TRANSFER["epochs"] * TRANSFER["models"]
    return {
        "seconds_per_pretraining_step": per_step,
        "pretraining_steps": pretrain_steps,
        "pretraining_minutes": per_step * pretrain_steps / 60,
        "pretraining_minutes_from_cpu_time": clock.cpu / THREADS[0] / samples * pretrain_steps / 60,
        "transfer_minutes": clf_clock.wall / samples * clf_steps / 60,
        "transfer_minutes_from_cpu_time": clf_clock.cpu / THREADS[0] / samples * clf_steps / 60,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2, help="torch threads (Colab's CPU runtime has 2 cores)")
    parser.add_argument("--samples", type=int, default=4, help="batches timed per measurement")
    parser.add_argument("--out", help="write the figures as JSON to this file")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="tiny models, seconds: checks that the script runs (its figures mean nothing)",
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    THREADS[0] = args.threads
    rng = random.Random(0)
    torch.manual_seed(0)
    figures = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}, torch {torch.__version__}, {args.threads} threads"
    }
    print(figures["machine"])
    base, mini, legal, lm = BERT_BASE, BERT_MINI, LEGAL_SMALL, LM
    if args.quick:
        tiny = dict(
            vocab_size=2000,
            hidden_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=64,
            max_position_embeddings=512,
            type_vocab_size=2,
        )
        base = mini = legal = tiny
        lm = dict(LM, ntoken=2003, nhid=32, seq_len=16)
        small_head = dict(hidden_dim=16, n_layers=1, max_len=32)
        sentiment_cpu, sentiment_gpu = dict(SENTIMENT_CPU, **small_head), dict(SENTIMENT_GPU, **small_head)
    else:
        sentiment_cpu, sentiment_gpu = SENTIMENT_CPU, SENTIMENT_GPU
    figures["transformers_cpu"] = sentiment(sentiment_cpu, args.samples, rng, base)
    figures["transformers_full_on_cpu"] = sentiment(sentiment_gpu, args.samples, rng, base)
    figures["rnn_attention_bert_mini_finetuned"] = finetune(mini, args.samples, rng)
    figures["rnn_attention_bert_mini_frozen"] = finetune(mini, args.samples, rng, frozen=True)
    figures["rnn_attention_legal_small_finetuned"] = finetune(legal, args.samples, rng)
    figures["transfer_lm_cpu"] = language_model(LM_CPU, args.samples, lm)
    figures["transfer_lm_full_on_cpu"] = language_model(LM_GPU, args.samples, lm)
    figures["peak_host_gib"] = host_peak_bytes() / 2**30
    for name, values in figures.items():
        if isinstance(values, dict):
            print(
                f"{name}: "
                + ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in values.items())
            )
    print(f"peak host memory of this process: {figures['peak_host_gib']:.2f} GiB")
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(figures, handle, indent=2)


if __name__ == "__main__":
    main()
