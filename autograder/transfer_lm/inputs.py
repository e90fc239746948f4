"""Synthetic data the transfer_lm hidden tests send into the student's code (grader side only).

Everything here is deterministic: data come from explicit torch.Generators, and the pre-trained
language model is trained with the reference code from a fixed seed. Nothing here is ever sent to
student code except inputs and weights.
"""

from __future__ import annotations

import functools

import torch

from autograder.transfer_lm.oracles import one_thread, reference

# ----------------------------------------------------------------------------- a low-entropy token stream
MARKOV_NTOKEN = 29


def markov_ids(length: int, seed: int, fanout: int = 2) -> torch.Tensor:
    """A first-order Markov chain over 29 tokens in which every token has 2 equally likely successors.

    The best possible next-token loss is ln 2 = 0.693 nats; a uniform guess costs ln 29 = 3.37.
    The chain (who follows whom) is fixed; ``seed`` only picks the path.
    """
    g = torch.Generator().manual_seed(1234)
    successors = torch.stack([torch.randperm(MARKOV_NTOKEN, generator=g)[:fanout] for _ in range(MARKOV_NTOKEN)])
    g = torch.Generator().manual_seed(seed)
    choice = torch.randint(fanout, (length,), generator=g)
    ids = [0]
    for t in range(1, length):
        ids.append(int(successors[ids[-1], choice[t]]))
    return torch.tensor(ids, dtype=torch.long)


def chunks(ids: torch.Tensor, seq_len: int):
    return reference.make_lm_chunks(ids, seq_len)


# ----------------------------------------------------------------------------- a tiny review language
POSITIVE = ["superb", "lovely", "witty", "gripping", "tender", "vivid", "clever", "stunning"]
NEGATIVE = ["dull", "clumsy", "bland", "tedious", "shallow", "messy", "hollow", "stale"]
NOUNS = ["plot", "acting", "music", "script", "ending", "cast", "pacing", "story"]
LINKS = ["was", "felt", "seemed"]
WORDS = ["<pad>", "<eos>", "the", "and", "very", "."] + LINKS + NOUNS + POSITIVE + NEGATIVE
INDEX = {word: i for i, word in enumerate(WORDS)}
REVIEW_NTOKEN = len(WORDS)


def _pick(options, g):
    return options[int(torch.randint(len(options), (1,), generator=g))]


def _sentence(positive: int, g) -> list[int]:
    adjectives = POSITIVE if positive else NEGATIVE
    words = []
    for k in range(int(torch.randint(1, 3, (1,), generator=g))):
        very = ["very"] if torch.rand(1, generator=g).item() < 0.3 else []
        words += (["and"] if k else []) + ["the", _pick(NOUNS, g), _pick(LINKS, g), *very, _pick(adjectives, g)]
    return [INDEX[w] for w in words + ["."]]


def review_corpus_ids(ndocs: int, seed: int) -> torch.Tensor:
    """Unlabelled documents of 2-3 sentences sharing one sentiment, separated by <eos>."""
    g = torch.Generator().manual_seed(seed)
    ids = []
    for _ in range(ndocs):
        positive = int(torch.randint(2, (1,), generator=g))
        for _ in range(int(torch.randint(2, 4, (1,), generator=g))):
            ids += _sentence(positive, g)
        ids.append(INDEX["<eos>"])
    return torch.tensor(ids, dtype=torch.long)


def labelled_reviews(n: int, seed: int, max_len: int = 16):
    """(inputs (n, max_len) right-padded with 0, lengths (n,), labels (n,)); one sentence per review."""
    g = torch.Generator().manual_seed(seed)
    inputs = torch.zeros(n, max_len, dtype=torch.long)
    lengths = torch.zeros(n, dtype=torch.long)
    labels = torch.randint(2, (n,), generator=g)
    for row in range(n):
        ids = _sentence(int(labels[row]), g)[:max_len]
        inputs[row, : len(ids)] = torch.tensor(ids)
        lengths[row] = len(ids)
    return inputs, lengths, labels


REVIEW_CONFIG = dict(ntoken=REVIEW_NTOKEN, nhead=2, nhid=32, nlayers=1)


@functools.lru_cache(maxsize=1)
def _pretrained_review_lm() -> tuple:
    """A tiny language model pre-trained on the review language with the reference code (cached)."""
    with torch.random.fork_rng(), one_thread():
        torch.manual_seed(0)
        model = reference.Model(REVIEW_NTOKEN, 2, 32, 1, REVIEW_NTOKEN, 0.0)
        optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
        inputs, targets = chunks(review_corpus_ids(150, seed=5), 16)
        for _ in range(2):
            reference.train_lm(model, inputs, targets, optimizer, batch_size=16, progress=False)
    return tuple((name, tensor.detach().clone()) for name, tensor in model.state_dict().items())


def pretrained_review_lm() -> dict:
    return {name: tensor.clone() for name, tensor in _pretrained_review_lm()}
