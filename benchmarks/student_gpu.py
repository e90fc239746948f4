"""Benchmark of the students' GPU path: the two notebook parts that need a GPU on Colab.

1. transformers.ipynb, Part 3 (cells `tokenize_and_split`, `train_sentiment`, `learning_curve`):
   frozen bert-base-uncased -> BERT features cached once -> 2-layer bidirectional GRU head, IMDB.
2. rnn_attention.ipynb, cells `bert_data` and `bert_training`: google/bert_uncased_L-4_H-256_A-4
   fine-tuned vs frozen (classifier only) on a 4,000-sentence SST-2 sample.

Real code paths with random weights: transformers' BertModel built from the checkpoints' real
configurations (nothing is downloaded), token ids drawn at random, review lengths drawn from the
datasets' documented length distributions. Accuracy therefore means nothing here and is not measured;
only cost (time, memory, FLOPs) is.

It times (a) features cached once vs recomputed every epoch, (b) fp16 autocast vs fp32,
(c) length-sorted dynamic padding vs fixed 512 padding, prints each ratio, peak host and device memory
and the size of the feature cache, and projects the whole Colab run onto a T4.

    python benchmarks/student_gpu.py            # --full on a GPU, --quick (seconds, reduced size) on CPU
    python benchmarks/student_gpu.py --quick --out figures.json

Imports only torch, transformers, psutil (optional) and the standard library, so that the file can be
copied alone onto a machine that does not have this repository's package.
"""

import argparse
import json
import math
import platform
import random
import resource
import sys
import time

import torch
import torch.nn as nn
from transformers import BertConfig, BertModel

try:
    import psutil
except ImportError:  # psutil only improves the host memory reading
    psutil = None

# ----------------------------------------------------------------------------------------------------
# The notebooks' settings (mirrored, not imported: the notebooks are the one place they are decided).
# transformers.ipynb, cell `tokenize_and_split`: MAX_LEN = 256, BATCH_SIZE = 64, 20% of the 25,000
# training reviews become the validation set. Cell `train_sentiment`: HIDDEN_DIM = 256, 2 layers,
# bidirectional, dropout 0.25, Adam lr 1e-3, N_EPOCHS = 5, features cached in fp16 under autocast on a
# GPU, sorted by length, each trimmed to its own length, kept on the device; the GRU trains in fp32
# (pad_cached calls .float()). Cell `learning_curve`: the 25,000 test reviews go through BERT batch by
# batch, unsorted, under autocast.
SENTIMENT = dict(
    max_len=256,
    batch_size=64,
    n_train=20_000,
    n_valid=5_000,
    n_test=25_000,
    hidden_dim=256,
    n_layers=2,
    dropout=0.25,
    lr=1e-3,
    epochs=5,
)
# rnn_attention.ipynb, cell `bert_data`: 4,000 training sentences, the 872 validation sentences,
# tokenized with max_length=64. Cell `bert_training`: batch 32, AdamW, 3 epochs, fp32 (no autocast),
# lr 5e-5 fine-tuned and 1e-3 frozen, DataCollatorWithPadding (dynamic padding, shuffled order).
FINETUNE = dict(max_len=64, batch_size=32, n_train=4_000, n_valid=872, epochs=3)

# Real configurations (the checkpoints' config.json values, written out so nothing is downloaded).
BERT_BASE = dict(
    vocab_size=30522,
    hidden_size=768,
    num_hidden_layers=12,
    num_attention_heads=12,
    intermediate_size=3072,
    max_position_embeddings=512,
    type_vocab_size=2,
)
BERT_MINI = dict(
    vocab_size=30522,
    hidden_size=256,
    num_hidden_layers=4,
    num_attention_heads=4,
    intermediate_size=1024,
    max_position_embeddings=512,
    type_vocab_size=2,
)

# Length distributions. IMDB (Maas et al. 2011, the 25,000 training reviews), figures as commonly
# reported by exploratory analyses of the dataset: mean about 230 words, median about 174 words, min
# about 10 and a long tail to about 2,470 words. A log-normal with that median and mean
# (sigma = sqrt(2 ln(mean / median)) = 0.77) is clipped to [10, 2470] words; bert-base's WordPiece makes
# about 1.3 tokens per IMDB word (punctuation and "<br />" markup count), plus [CLS] and [SEP].
IMDB_WORDS = dict(median=174, mean=230, low=10, high=2470, tokens_per_word=1.3)
# SST-2 (GLUE): training items are phrases and sentences, mean about 9-10 words; the validation items
# are whole sentences, mean about 19-20 words; pre-tokenized lower-case text, about 1.2 WordPiece
# tokens per word. Both are short against max_length=64, so truncation rarely matters.
SST2_WORDS = dict(
    train=dict(median=7, mean=9.5, low=1, high=52),
    valid=dict(median=18, mean=19.5, low=2, high=55),
    tokens_per_word=1.2,
)

# Assumed T4 figures (NVIDIA T4 datasheet): 65 TFLOP/s fp16 tensor, 8.1 TFLOP/s fp32, 16 GB, 320 GB/s.
T4 = dict(fp16=65e12, fp32=8.1e12, memory_bytes=16e9, bandwidth=320e9)
# Dense peaks of the lent GPU (datasheets), to turn measured FLOP/s into an efficiency. torch leaves
# TF32 off for matmuls, so the fp32 peak is the non-tensor one.
PEAKS = {
    "H100 SXM": dict(fp16=989e12, fp32=67e12),
    "H100 PCIe": dict(fp16=756e12, fp32=51e12),
    "H200": dict(fp16=989e12, fp32=67e12),
    "A100": dict(fp16=312e12, fp32=19.5e12),
    "T4": dict(fp16=65e12, fp32=8.1e12),
    "L4": dict(fp16=121e12, fp32=30e12),
}


def draw_lengths(n, spec, tokens_per_word, rng):
    """Token counts (with [CLS] and [SEP]) of n texts whose word counts follow a clipped log-normal."""
    sigma = math.sqrt(2 * math.log(spec["mean"] / spec["median"]))
    words = [min(spec["high"], max(spec["low"], rng.lognormvariate(math.log(spec["median"]), sigma))) for _ in range(n)]
    return [int(round(w * tokens_per_word)) + 2 for w in words]


def make_batches(lengths, batch_size, max_len, padding, rng):
    """Lists of (row lengths, padded width). padding: 'sorted', 'shuffled' or an int (fixed width)."""
    lengths = [min(length, max_len) for length in lengths]
    order = list(range(len(lengths)))
    if padding == "sorted":
        order.sort(key=lambda i: lengths[i])
    else:
        rng.shuffle(order)
    batches = []
    for start in range(0, len(order), batch_size):
        rows = [lengths[i] for i in order[start : start + batch_size]]
        batches.append((rows, padding if isinstance(padding, int) else max(rows)))
    return batches


def tensors(rows, width, vocab_size, device):
    """input_ids ([CLS] ... [SEP] then [PAD]=0) and attention_mask for one batch."""
    ids = torch.randint(1000, vocab_size, (len(rows), width))
    mask = torch.zeros(len(rows), width, dtype=torch.long)
    for r, length in enumerate(rows):
        ids[r, 0], ids[r, length - 1] = 101, 102
        ids[r, length:] = 0
        mask[r, :length] = 1
    return ids.to(device), mask.to(device)


def bert_flops(config, rows, width):
    """Forward FLOPs of BertModel on one padded batch: every padded position is computed too."""
    h, i, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    dense = 2 * (4 * h * h + 2 * h * i)  # q, k, v, output projections and the MLP, per token
    attention = 4 * width * h  # QK^T and AV, per token, over the padded width
    return len(rows) * width * layers * (dense + attention)


def gru_flops(input_size, hidden, n_layers, tokens, directions=2):
    """Forward FLOPs of a stacked GRU over `tokens` real time steps (packed sequences skip padding)."""
    total, size = 0, input_size
    for _ in range(n_layers):
        total += directions * tokens * 2 * 3 * hidden * (size + hidden)
        size = hidden * directions
    return total


class GRUHead(nn.Module):
    """The trainable part of the notebook's BERTGRUSentiment.head: packed GRU, final states, linear."""

    def __init__(self, input_size, hidden, n_layers, dropout):
        super().__init__()
        self.rnn = nn.GRU(
            input_size, hidden, num_layers=n_layers, bidirectional=True, batch_first=True, dropout=dropout
        )
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(2 * hidden, 1)

    def forward(self, features, attention_mask):
        lengths = attention_mask.sum(1).long().cpu()
        packed = nn.utils.rnn.pack_padded_sequence(features, lengths, batch_first=True, enforce_sorted=False)
        _, hidden = self.rnn(packed)
        return self.out(self.dropout(torch.cat([hidden[-2], hidden[-1]], dim=-1)))


class Classifier(nn.Module):
    """rnn_attention's BertForSentenceClassification: BertModel + linear layer on pooler_output."""

    def __init__(self, config, num_labels=2):
        super().__init__()
        self.bert = BertModel(config)
        self.classifier = nn.Linear(config.hidden_size, num_labels)

    def forward(self, input_ids, attention_mask, labels):
        logits = self.classifier(self.bert(input_ids=input_ids, attention_mask=attention_mask).pooler_output)
        return nn.functional.cross_entropy(logits, labels)


class Meter:
    """Wall time with the device synchronised at both ends, and the device's peak memory in between."""

    def __init__(self, device):
        self.device = device

    def sync(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize()

    def __enter__(self):
        self.sync()
        if self.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats()
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.sync()
        self.seconds = time.perf_counter() - self.start
        self.peak = torch.cuda.max_memory_allocated() if self.device.type == "cuda" else None


def host_peak_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def autocast(device, enabled):
    # The notebooks autocast to fp16 on CUDA only; on a CPU the quick mode uses bfloat16, the CPU's
    # half type, so that the code path is exercised (CPU ratios say nothing about a GPU).
    dtype = torch.float16 if device.type == "cuda" else torch.bfloat16
    return torch.autocast(device_type=device.type, dtype=dtype, enabled=enabled)


def encode_pass(bert, batches, device, amp, keep=False, cache_dtype=None):
    """BERT forward over the batches as in the notebook's cache_features; returns FLOPs (and the cache)."""
    flops, cache = 0, []
    bert.eval()
    with torch.no_grad():
        for rows, width in batches:
            ids, mask = tensors(rows, width, bert.config.vocab_size, device)
            with autocast(device, amp):
                features = bert(input_ids=ids, attention_mask=mask).last_hidden_state
            flops += bert_flops(bert.config, rows, width)
            if keep:  # the notebook keeps each review's features trimmed to its length, on the device
                cache.extend(features[j, :n].to(cache_dtype) for j, n in enumerate(rows))
    return flops, cache


def gru_epoch(head, optimizer, items, batch_size, device, rng):
    """One training epoch of the head on cached features, collated like the notebook's pad_cached."""
    head.train()
    order = list(range(len(items)))
    rng.shuffle(order)
    tokens = 0
    for start in range(0, len(order), batch_size):
        chunk = [items[i] for i in order[start : start + batch_size]]
        longest = max(f.shape[0] for f in chunk)
        features = torch.zeros(len(chunk), longest, chunk[0].shape[1], device=device)
        mask = torch.zeros(len(chunk), longest, dtype=torch.long)
        for r, f in enumerate(chunk):
            features[r, : f.shape[0]] = f.float()
            mask[r, : f.shape[0]] = 1
            tokens += f.shape[0]
        labels = torch.randint(0, 2, (len(chunk),), device=device).float()
        loss = nn.functional.binary_cross_entropy_with_logits(head(features, mask).squeeze(1), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return tokens


def recompute_epoch(bert, head, optimizer, batches, device, amp):
    """One epoch without a cache: BERT runs on every batch (under no_grad, BERT is frozen), then the head."""
    bert.eval()
    head.train()
    for rows, width in batches:
        ids, mask = tensors(rows, width, bert.config.vocab_size, device)
        with torch.no_grad(), autocast(device, amp):
            features = bert(input_ids=ids, attention_mask=mask).last_hidden_state
        labels = torch.randint(0, 2, (len(rows),), device=device).float()
        logits = head(features.float(), mask).squeeze(1)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def classifier_epoch(model, batches, device, lr, amp):
    """One epoch of rnn_attention's train_classifier on the trainable parameters (AdamW)."""
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    model.train()
    flops = 0
    for rows, width in batches:
        ids, mask = tensors(rows, width, model.bert.config.vocab_size, device)
        labels = torch.randint(0, 2, (len(rows),), device=device)
        with autocast(device, amp):
            loss = model(ids, mask, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        flops += bert_flops(model.bert.config, rows, width)
    return flops


def peak_for(name, device):
    """The lent GPU's datasheet peaks, chosen from its name."""
    if device.type != "cuda":
        return None
    gpu = torch.cuda.get_device_name(device)
    for key in ("H100 PCIe", "H200", "A100", "T4", "L4"):
        if all(word in gpu for word in key.split()):
            return key
    return "H100 SXM" if "H100" in gpu else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="reduced size, seconds on a CPU (default without a GPU)")
    size.add_argument("--full", action="store_true", help="the notebooks' real sizes (default with a GPU)")
    parser.add_argument("--out", help="write the figures as JSON to this file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--no-cudnn-sdp",
        action="store_true",
        help="keep torch from using cuDNN's attention kernels (to isolate their per-shape setup cost)",
    )
    args = parser.parse_args(argv)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if args.no_cudnn_sdp:
        torch.backends.cuda.enable_cudnn_sdp(False)
    quick = args.quick or (not args.full and device.type != "cuda")
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)
    sentiment, finetune = dict(SENTIMENT), dict(FINETUNE)
    base, mini = dict(BERT_BASE), dict(BERT_MINI)
    if quick and device.type == "cpu":
        # One thread: on a shared, busy CPU, OpenMP threads waiting for each other at every one of the
        # GRU's small sequential steps made the quick run 30x slower; one thread keeps it in seconds.
        torch.set_num_threads(1)
    if quick:
        # Reduced size: same pipeline and distributions, fewer reviews, narrower BERTs, shorter limits.
        base.update(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=256)
        mini.update(hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=256)
        sentiment.update(batch_size=16, hidden_dim=32)
        finetune.update(batch_size=16)
        sample, fixed_width, ft_sample = 64, 512, 64
    else:
        # The variants are timed on a sample, the notebook's own configuration on the full 25,000 reviews.
        sample, fixed_width, ft_sample = 4096, 512, finetune["n_train"]
    fixed_width = min(fixed_width, base["max_position_embeddings"])
    fig = {
        "mode": "quick" if quick else "full",
        "device": device.type,
        "device_name": torch.cuda.get_device_name(device)
        if device.type == "cuda"
        else platform.processor() or platform.machine(),
        "cpu_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "transformers": sys.modules["transformers"].__version__,
        "sentiment": sentiment,
        "finetune": finetune,
        "cudnn_sdp_enabled": torch.backends.cuda.cudnn_sdp_enabled(),
    }
    gpu_kind = peak_for(fig["device_name"], device)
    amp = True
    out = print

    out(f"mode {fig['mode']} on {fig['device_name']} (torch {fig['torch']}, transformers {fig['transformers']})")
    # ---------------------------------------------------------------- sentiment: frozen bert-base + GRU
    bert = BertModel(BertConfig(**base)).to(device)
    for p in bert.parameters():
        p.requires_grad = False
    bs, max_len = sentiment["batch_size"], sentiment["max_len"]
    lengths = draw_lengths(sample, IMDB_WORDS, IMDB_WORDS["tokens_per_word"], rng)
    kept = [min(n, max_len) for n in lengths]
    fig["imdb_sample"] = dict(
        reviews=sample,
        mean_tokens_untruncated=sum(lengths) / sample,
        share_over_max_len=sum(n > max_len for n in lengths) / sample,
        mean_tokens_kept=sum(kept) / sample,
    )
    out(
        f"IMDB-like lengths: mean {fig['imdb_sample']['mean_tokens_untruncated']:.0f} tokens, "
        f"{100 * fig['imdb_sample']['share_over_max_len']:.0f}% longer than MAX_LEN={max_len}, "
        f"mean kept {fig['imdb_sample']['mean_tokens_kept']:.0f}"
    )
    encode_pass(bert, make_batches(lengths[: 2 * bs], bs, max_len, "sorted", rng), device, amp)  # warm-up
    encode_pass(bert, make_batches(lengths[: 2 * bs], bs, max_len, "sorted", rng), device, False)

    passes = {}
    variants = [
        ("sorted_fp16", "sorted", max_len, True),
        ("sorted_fp32", "sorted", max_len, False),
        ("shuffled_fp16", "shuffled", max_len, True),
        (f"fixed{max_len}_fp16", max_len, max_len, True),
        (f"fixed{fixed_width}_fp16", fixed_width, fixed_width, True),
    ]
    for name, padding, limit, use_amp in variants:
        batches = make_batches(lengths, bs, limit, padding, rng)
        # The first pass over a new set of shapes pays one-off kernel selection (cuDNN attention on
        # Hopper builds a plan per shape); it is timed apart and the steady state is timed second.
        with Meter(device) as cold:
            encode_pass(bert, batches, device, use_amp)
        with Meter(device) as m:
            flops, _ = encode_pass(bert, batches, device, use_amp)
        passes[name] = dict(
            seconds=m.seconds,
            cold_seconds=cold.seconds,
            reviews_per_s=sample / m.seconds,
            flops=flops,
            flops_per_s=flops / m.seconds,
            device_peak=m.peak,
        )
        out(
            f"  BERT feature pass {name:>14}: {m.seconds:7.2f} s (first pass {cold.seconds:6.2f} s), "
            f"{sample / m.seconds:8.0f} reviews/s, {flops / m.seconds / 1e12:6.2f} TFLOP/s"
        )
    fig["feature_pass"] = passes
    ratios = {
        "fp32_over_fp16": passes["sorted_fp32"]["seconds"] / passes["sorted_fp16"]["seconds"],
        f"fixed{fixed_width}_over_sorted": passes[f"fixed{fixed_width}_fp16"]["seconds"]
        / passes["sorted_fp16"]["seconds"],
        f"fixed{max_len}_over_sorted": passes[f"fixed{max_len}_fp16"]["seconds"] / passes["sorted_fp16"]["seconds"],
        "shuffled_over_sorted": passes["shuffled_fp16"]["seconds"] / passes["sorted_fp16"]["seconds"],
    }

    # The notebook's configuration end to end: cache (sorted, autocast, fp16 on the device), GRU epochs.
    cache_dtype = torch.float16 if device.type == "cuda" else torch.float32
    n_cache = sample if quick else sentiment["n_train"] + sentiment["n_valid"]
    cache_lengths = draw_lengths(n_cache, IMDB_WORDS, IMDB_WORDS["tokens_per_word"], rng)
    before = torch.cuda.memory_allocated() if device.type == "cuda" else 0
    with Meter(device) as m:
        _, cache = encode_pass(
            bert,
            make_batches(cache_lengths, bs, max_len, "sorted", rng),
            device,
            amp,
            keep=True,
            cache_dtype=cache_dtype,
        )
    nominal = sum(f.numel() * f.element_size() for f in cache)
    held = (torch.cuda.memory_allocated() - before) if device.type == "cuda" else nominal
    fig["cache"] = dict(
        reviews=n_cache,
        seconds=m.seconds,
        nominal_bytes=nominal,
        device_bytes_held=held,
        dtype=str(cache_dtype),
        device_peak=m.peak,
        bytes_per_review=nominal / n_cache,
    )
    out(
        f"feature cache of {n_cache} reviews: {m.seconds:.1f} s, {nominal / 2**30:.2f} GiB of {cache_dtype} "
        f"({held / 2**30:.2f} GiB held on the device), peak device memory "
        f"{(m.peak or 0) / 2**30:.2f} GiB"
    )

    head = GRUHead(base["hidden_size"], sentiment["hidden_dim"], sentiment["n_layers"], sentiment["dropout"]).to(device)
    optimizer = torch.optim.Adam(head.parameters(), lr=sentiment["lr"])
    n_epoch = sample if quick else sentiment["n_train"]
    train_items = cache[:n_epoch]
    gru_epoch(head, optimizer, train_items[: 2 * bs], bs, device, rng)  # warm-up (cuDNN plans)
    with Meter(device) as first:
        gru_epoch(head, optimizer, train_items, bs, device, rng)
    with Meter(device) as m:
        tokens = gru_epoch(head, optimizer, train_items, bs, device, rng)
    gflops = 3 * gru_flops(base["hidden_size"], sentiment["hidden_dim"], sentiment["n_layers"], tokens)
    fig["gru_epoch"] = dict(
        reviews=len(train_items),
        seconds=m.seconds,
        first_epoch_seconds=first.seconds,
        flops=gflops,
        device_peak=m.peak,
        seconds_per_review=m.seconds / len(train_items),
    )
    out(
        f"GRU head epoch on cached features ({len(train_items)} reviews): {m.seconds:.2f} s (first {first.seconds:.2f} s), "
        f"{gflops / m.seconds / 1e12:.2f} TFLOP/s (forward + backward counted as 3x forward)"
    )
    del cache, train_items
    if device.type == "cuda":
        torch.cuda.empty_cache()

    # (a) cached vs recomputed: one epoch with BERT inside the loop, on the sample.
    recompute_batches = make_batches(lengths, bs, max_len, "shuffled", rng)
    with Meter(device) as m:
        recompute_epoch(bert, head, optimizer, recompute_batches, device, amp)
    per_review_recompute = m.seconds / sample
    per_review_feature = passes["sorted_fp16"]["seconds"] / sample
    per_review_gru = fig["gru_epoch"]["seconds_per_review"]
    epochs = sentiment["epochs"]
    cached_total = per_review_feature + epochs * per_review_gru
    recomputed_total = epochs * per_review_recompute
    fig["recompute_epoch"] = dict(reviews=sample, seconds=m.seconds, device_peak=m.peak)
    ratios["recomputed_over_cached_epoch"] = per_review_recompute / per_review_gru
    ratios[f"recomputed_over_cached_{epochs}_epochs"] = recomputed_total / cached_total
    out(
        f"epoch with BERT recomputed: {m.seconds:.2f} s for {sample} reviews "
        f"({ratios['recomputed_over_cached_epoch']:.1f}x a cached epoch)"
    )
    del bert, head, optimizer
    if device.type == "cuda":
        torch.cuda.empty_cache()

    # ---------------------------------------------------------------- rnn_attention: small BERT fine-tuning
    ft = {}
    ft_lengths = draw_lengths(ft_sample, SST2_WORDS["train"], SST2_WORDS["tokens_per_word"], rng)
    for name, frozen, use_amp, lr in [
        ("fine-tuned_fp32", False, False, 5e-5),
        ("frozen_fp32", True, False, 1e-3),
        ("fine-tuned_fp16", False, True, 5e-5),
    ]:
        torch.manual_seed(args.seed)
        model = Classifier(BertConfig(**mini)).to(device)
        if frozen:
            for p in model.bert.parameters():
                p.requires_grad = False
        batches = make_batches(ft_lengths, finetune["batch_size"], finetune["max_len"], "shuffled", rng)
        with Meter(device) as cold:  # the notebook's first epoch: new shapes, optimiser state created
            classifier_epoch(model, batches, device, lr, use_amp)
        with Meter(device) as m:
            flops = classifier_epoch(model, batches, device, lr, use_amp)
        ft[name] = dict(
            sentences=ft_sample,
            seconds=m.seconds,
            first_epoch_seconds=cold.seconds,
            sentences_per_s=ft_sample / m.seconds,
            forward_flops=flops,
            device_peak=m.peak,
        )
        out(
            f"  small BERT epoch {name:>15}: {m.seconds:6.2f} s (first epoch {cold.seconds:6.2f} s), "
            f"{ft_sample / m.seconds:7.0f} sentences/s"
        )
        del model
    fig["finetune_epoch"] = ft
    ratios["finetune_fp32_over_frozen"] = ft["fine-tuned_fp32"]["seconds"] / ft["frozen_fp32"]["seconds"]
    ratios["finetune_fp32_over_fp16"] = ft["fine-tuned_fp32"]["seconds"] / ft["fine-tuned_fp16"]["seconds"]
    fig["ratios"] = ratios
    out("ratios:")
    for name, value in ratios.items():
        out(f"  {name:>34}: {value:6.2f}")

    fig["host_peak_rss_bytes"] = host_peak_bytes()
    fig["host_rss_bytes"] = psutil.Process().memory_info().rss if psutil else None
    phases = [*passes.values(), fig["cache"], fig["gru_epoch"], fig["recompute_epoch"], *ft.values()]
    fig["device_peak_bytes"] = max(p["device_peak"] for p in phases) if device.type == "cuda" else None
    out(
        f"peak host RSS {fig['host_peak_rss_bytes'] / 2**30:.2f} GiB; peak device memory "
        f"{(fig['device_peak_bytes'] or 0) / 2**30:.2f} GiB"
    )

    if not quick:
        fig["t4_projection"] = project_t4(fig, gpu_kind, out)
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(fig, handle, indent=2)
    return fig


def project_t4(fig, gpu_kind, out):
    """Whole Colab run on a T4 from FLOPs and the efficiencies measured here, as a (low, high) range.

    A phase's FLOPs are divided by the T4's datasheet peak for its precision times a fraction of peak
    ("efficiency"). High end: the fraction this GPU reached on that same phase (its measured FLOP/s
    over its datasheet peak). A phase that leaves a large GPU idle (the GRU's sequential steps, the small
    BERT's tiny batches) reaches a larger fraction of the T4's much smaller peak, so the low end uses the
    fraction reached by the big, compute-bound BERT feature pass at the same precision. A T4 is never
    faster than the GPU measured here, so the measured time (scaled to the phase's size) is a floor.
    Steady-state times only: the one-off per-shape setup of cuDNN attention on Hopper does not exist on
    a T4 (no cuDNN attention before compute capability 8.0).
    """
    peak = PEAKS.get(gpu_kind) or PEAKS["H100 SXM"]
    s, f = fig["sentiment"], fig["finetune"]
    passes, ft, gru = fig["feature_pass"], fig["finetune_epoch"], fig["gru_epoch"]
    n_sample = fig["imdb_sample"]["reviews"]
    eff = {
        "bert_fp16": passes["sorted_fp16"]["flops_per_s"] / peak["fp16"],
        "bert_fp32": passes["sorted_fp32"]["flops_per_s"] / peak["fp32"],
        "gru_fp32": gru["flops"] / gru["seconds"] / peak["fp32"],
        "finetune_fp32": 3 * ft["fine-tuned_fp32"]["forward_flops"] / ft["fine-tuned_fp32"]["seconds"] / peak["fp32"],
        "frozen_fp32": ft["frozen_fp32"]["forward_flops"] / ft["frozen_fp32"]["seconds"] / peak["fp32"],
    }

    def phase(flops, precision, own, floor_seconds):
        best = eff[f"bert_{precision}"]
        low = max(flops / (T4[precision] * max(best, own)), floor_seconds)
        high = max(flops / (T4[precision] * min(best, own)), floor_seconds)
        return low, high

    n_cache = s["n_train"] + s["n_valid"]
    sorted16, shuffled16 = passes["sorted_fp16"], passes["shuffled_fp16"]
    gru_reviews = s["n_train"] + s["n_valid"] / 3  # validation is forward only: a third of the cost
    gru_scale = s["epochs"] * gru_reviews / gru["reviews"]
    cache = phase(
        sorted16["flops"] * n_cache / n_sample, "fp16", eff["bert_fp16"], sorted16["seconds"] * n_cache / n_sample
    )
    epochs = phase(gru["flops"] * gru_scale, "fp32", eff["gru_fp32"], gru["seconds"] * gru_scale)
    bert_each_epoch = phase(
        s["epochs"] * shuffled16["flops"] * n_cache / n_sample,
        "fp16",
        eff["bert_fp16"],
        s["epochs"] * shuffled16["seconds"] * n_cache / n_sample,
    )
    test = phase(
        shuffled16["flops"] * s["n_test"] / n_sample,
        "fp16",
        eff["bert_fp16"],
        shuffled16["seconds"] * s["n_test"] / n_sample,
    )
    fine, frozen = ft["fine-tuned_fp32"], ft["frozen_fp32"]
    scale_ft = f["epochs"] * f["n_train"] / fine["sentences"]
    phases = {
        "feature cache (train+valid, fp16, sorted)": cache,
        f"{s['epochs']} GRU epochs on the cache (train + valid)": epochs,
        "test evaluation (25,000, BERT per batch, fp16)": test,
        "rnn_attention fine-tuned, 3 epochs fp32": phase(
            3 * fine["forward_flops"] * scale_ft, "fp32", eff["finetune_fp32"], fine["seconds"] * scale_ft
        ),
        "rnn_attention frozen, 3 epochs fp32": phase(
            frozen["forward_flops"] * scale_ft, "fp32", eff["frozen_fp32"], frozen["seconds"] * scale_ft
        ),
    }
    add = lambda *pairs: tuple(sum(p[k] for p in pairs) for k in (0, 1))
    cell = add(cache, epochs)
    without_cache = add(bert_each_epoch, epochs)  # BERT recomputed every epoch, same GRU work
    fp32_cache = phase(
        passes["sorted_fp32"]["flops"] * n_cache / n_sample,
        "fp32",
        eff["bert_fp32"],
        passes["sorted_fp32"]["seconds"] * n_cache / n_sample,
    )
    fixed512_cache = (
        phase(
            passes["fixed512_fp16"]["flops"] * n_cache / n_sample,
            "fp16",
            eff["bert_fp16"],
            passes["fixed512_fp16"]["seconds"] * n_cache / n_sample,
        )
        if "fixed512_fp16" in passes
        else None
    )
    cache_bytes = fig["cache"]["device_bytes_held"] * n_cache / fig["cache"]["reviews"]
    projection = dict(
        assumed_t4=T4,
        measured_gpu_peaks=peak,
        gpu_kind=gpu_kind,
        efficiency=eff,
        phases_seconds=phases,
        train_sentiment_cell_seconds=cell,
        total_seconds=add(*phases.values()),
        train_sentiment_without_cache_seconds=without_cache,
        cache_pass_fp32_seconds=fp32_cache,
        cache_pass_fixed512_seconds=fixed512_cache,
        cache_bytes_on_t4=cache_bytes,
    )
    minutes = lambda pair: f"{pair[0] / 60:5.1f} - {pair[1] / 60:5.1f} min"
    out("efficiency measured on " + str(gpu_kind) + ": " + ", ".join(f"{k} {v:.1%}" for k, v in eff.items()))
    out(f"T4 projection (assumed {T4['fp16'] / 1e12:.0f} TFLOP/s fp16, {T4['fp32'] / 1e12:.1f} TFLOP/s fp32):")
    for name, pair in phases.items():
        out(f"  {name:>52}: {minutes(pair)}")
    out(f"  {'cell train_sentiment (cache + epochs)':>52}: {minutes(cell)}")
    out(f"  {'the same with BERT recomputed every epoch':>52}: {minutes(without_cache)}")
    out(f"  {'feature cache in fp32 instead of fp16':>52}: {minutes(fp32_cache)}")
    if fixed512_cache:
        out(f"  {'feature cache padded to 512 instead of sorted':>52}: {minutes(fixed512_cache)}")
    out(f"  {'all GPU phases of both notebooks':>52}: {minutes(add(*phases.values()))}")
    out(f"  feature cache on the device: {cache_bytes / 2**30:.1f} GiB of the T4's {T4['memory_bytes'] / 1e9:.0f} GB")
    return projection


if __name__ == "__main__":
    main()
