"""What the grader builds and sends into the student's code: padding masks, the grader's weights, and
synthetic sentiment reviews for the hidden training test, all made in the grader's process.

The training test tokenizes here with a word-level vocabulary and sends only token ids into the student's code;
held-out labels stay in this process and are compared with the predictions that come back.
"""

import random

import torch

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
POSITIVE = [
    "wonderful",
    "moving",
    "brilliant",
    "charming",
    "superb",
    "delightful",
    "gripping",
    "funny",
    "touching",
    "clever",
    "beautiful",
    "masterful",
]
NEGATIVE = [
    "dull",
    "clumsy",
    "boring",
    "awful",
    "tedious",
    "lifeless",
    "messy",
    "predictable",
    "weak",
    "silly",
    "painful",
    "forgettable",
]
NEUTRAL = [
    "the",
    "film",
    "movie",
    "story",
    "cast",
    "director",
    "script",
    "scene",
    "ending",
    "music",
    "camera",
    "plot",
    "was",
    "is",
    "felt",
    "a",
    "an",
    "and",
    "with",
    "very",
    "quite",
    "rather",
    "of",
    "in",
    "this",
    "that",
    "lead",
    "actor",
    "pacing",
    "dialogue",
    "sequel",
    "hour",
]
VOCAB = SPECIALS + sorted(set(POSITIVE + NEGATIVE + NEUTRAL))
WORD_ID = {word: i for i, word in enumerate(VOCAB)}
PAD, CLS, SEP = 0, 2, 3


def padding_mask(batch, seq, generator):
    """(batch, seq) bool, True = padding; every row keeps at least two real tokens."""
    lengths = torch.randint(2, seq + 1, (batch,), generator=generator)
    return torch.arange(seq)[None, :] >= lengths[:, None]


def grader_weights(module, generator, scale=0.1):
    """``module``'s state after the grader moves every parameter away from its initialisation."""
    with torch.no_grad():
        for p in module.parameters():
            p.add_(torch.randn(p.shape, generator=generator) * scale)
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def review(rng, label):
    """A review of 8-20 words: 2-3 words of its own polarity, at most one of the other, the rest neutral."""
    own, other = (POSITIVE, NEGATIVE) if label == 1 else (NEGATIVE, POSITIVE)
    words = [rng.choice(NEUTRAL) for _ in range(rng.randint(6, 16))]
    for _ in range(rng.randint(2, 3)):
        words.insert(rng.randrange(len(words) + 1), rng.choice(own))
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words) + 1), rng.choice(other))
    return " ".join(words)


def reviews(n, seed):
    rng = random.Random(seed)
    labels = [rng.randint(0, 1) for _ in range(n)]
    return [review(rng, y) for y in labels], labels


def encode(texts, max_len=24):
    """Word-level ids with [CLS]/[SEP], padded to max_len: (input_ids, attention_mask) long tensors."""
    ids = torch.full((len(texts), max_len), PAD, dtype=torch.long)
    mask = torch.zeros((len(texts), max_len), dtype=torch.long)
    for row, text in enumerate(texts):
        tokens = [CLS] + [WORD_ID.get(w, 1) for w in text.split()][: max_len - 2] + [SEP]
        ids[row, : len(tokens)] = torch.tensor(tokens)
        mask[row, : len(tokens)] = 1
    return ids, mask
