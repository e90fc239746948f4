"""What the grader computes to compare with, for the transfer_lm hidden tests (grader side only).

Reference models are the stand-ins (the notebook's own definitions) built under a forked RNG with a
fixed seed; the causal mask is PyTorch's own.
"""

from __future__ import annotations

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
