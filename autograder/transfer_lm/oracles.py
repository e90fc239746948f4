"""What the grader computes to compare with, for the transfer_lm hidden tests (grader side only).

Reference models are the stand-ins (the notebook's own definitions) built under a forked RNG with a
fixed seed; the causal mask is PyTorch's own. The decoding distribution is plain Python on one row of
scores (math.exp, sorted, a running sum in double precision), written from the skeleton's words and not
from the notebook's tensor code.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from assignments.grading.testkit import single_threaded_torch as one_thread  # noqa: F401 - the grader's own training too
from autograder.transfer_lm import stand_ins as reference


# ----------------------------------------------------------------------------- masks
def causal_mask(size: int) -> torch.Tensor:
    """PyTorch's own causal mask (the oracle)."""
    return torch.nn.Transformer.generate_square_subsequent_mask(size)


def as_additive(mask) -> torch.Tensor | None:
    """A float additive mask equivalent to ``mask`` (float, or bool with True = blocked), or None."""
    if not isinstance(mask, torch.Tensor):
        return None
    if mask.dtype == torch.bool:
        return torch.zeros(mask.shape).masked_fill(mask, float("-inf"))
    return mask.float()


# ----------------------------------------------------------------------------- reference models
def reference_model(ntoken, nhead, nhid, nlayers, nclasses, state=None, seed=0):
    """The reference Model in eval mode, with ``state`` loaded when given (else seeded init)."""
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = reference.Model(ntoken, nhead, nhid, nlayers, nclasses, 0.0)
    if state is not None:
        model.load_state_dict(state)
    return model.eval()


@torch.no_grad()
def held_out_loss(model, inputs, targets) -> float:
    logits = model(inputs, causal_mask(inputs.size(1)))
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten()).item()


# ----------------------------------------------------------------------------- decoding
def _normalised(weights: list[float]) -> list[float]:
    total = sum(weights)
    return [w / total for w in weights]


def decoding_distribution(row, temperature=1.0, top_k=None, top_p=None) -> list[float]:
    """The probability of each id of one row of scores under sample_next's contract: scores divided by the
    temperature, softmax; top-k keeps the k largest (the tests send no ties at the k-th); top-p then ranks
    the ids by decreasing probability (the smaller id first among equal ones) and keeps them until the
    running sum reaches p, the id that reaches it included; the kept probabilities are renormalised."""
    scaled = [float(s) / temperature for s in row]
    if top_k is not None:
        kth = sorted(scaled, reverse=True)[top_k - 1]
        scaled = [s if s >= kth else -math.inf for s in scaled]
    top = max(scaled)
    probabilities = _normalised([math.exp(s - top) for s in scaled])
    if top_p is None:
        return probabilities
    ranked = sorted(range(len(probabilities)), key=lambda i: (-probabilities[i], i))
    kept, running = set(), 0.0
    for i in ranked:
        if running >= top_p:
            break
        kept.add(i)
        running += probabilities[i]
    return _normalised([q if i in kept else 0.0 for i, q in enumerate(probabilities)])


def nucleus_margin(row, top_p, temperature=1.0, top_k=None) -> float:
    """How far p lies from every running sum of the ranked probabilities (after temperature and top-k): a
    row whose margin is tiny has a kept set that float32 rounding may move by one id, so tests skip it."""
    probabilities = decoding_distribution(row, temperature, top_k)
    running, margin = 0.0, math.inf
    for q in sorted(probabilities, reverse=True):
        running += q
        margin = min(margin, abs(running - top_p))
    return margin


# ----------------------------------------------------------------------------- preference tuning
def continuation_logprob(logits, ids, prompt_lengths, lengths) -> torch.Tensor:
    """float64 (batch,): for each row the sum over prompt_lengths[b] <= t < lengths[b] of the log-probability
    the scores at position t - 1 give the token at position t, in plain Python (math.exp and math.log)."""
    out = []
    for b in range(logits.size(0)):
        total = 0.0
        for t in range(int(prompt_lengths[b]), int(lengths[b])):
            row = [float(s) for s in logits[b, t - 1]]
            top = max(row)
            log_norm = top + math.log(sum(math.exp(s - top) for s in row))
            total += row[int(ids[b, t])] - log_norm
        out.append(total)
    return torch.tensor(out, dtype=torch.float64)


def dpo_oracle(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta) -> float:
    """The mean over pairs of -log(sigmoid(beta * margin)), in plain Python float64: max(-x, 0) + log1p(exp(-|x|))."""
    terms = []
    for c, r, c0, r0 in zip(
        *(t.tolist() for t in (policy_chosen, policy_rejected, reference_chosen, reference_rejected))
    ):
        x = beta * ((c - c0) - (r - r0))
        terms.append(max(-x, 0.0) + math.log1p(math.exp(-abs(x))))
    return sum(terms) / len(terms)
