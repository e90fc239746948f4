"""Checks shared by the three attention questions: shapes first, then normalisation over the keys."""

import torch

from assignments.grading.testkit import expect, expect_shape

# The grader's weights are loaded strictly, with one allowance the additive skeleton states: its single bias
# b_k may sit on Wq instead of Wk (Wq q + b + Wk k gives the same scores). A bias the formula does not have
# (on both projections, or on v, which shifts every score of a row alike) is loaded as zeros.
RUN_ATTENTION = """
attention = {cls}(hidden_size)
if state is not None:
    own, state = attention.state_dict(), dict(state)
    if "Wk.bias" in state and "Wk.bias" not in own and "Wq.bias" in own:
        state["Wq.bias"] = state.pop("Wk.bias")
    for name in own:
        if name.endswith(".bias") and name not in state:
            state[name] = torch.zeros_like(own[name])
    attention.load_state_dict(state)
context, weights = attention(queries, keys, values)
result = {{"context": context, "weights": weights}}
"""


def run_attention(student, cls, queries, keys, values, state=None):
    return student.run(
        RUN_ATTENTION.format(cls=cls),
        hidden_size=queries.shape[-1],
        state=state,
        queries=queries,
        keys=keys,
        values=values,
    )


def expect_normalised(out, batch, k, seq, hidden):
    context = expect_shape(out["context"], (batch, k, hidden), "context (batch, k, hidden)")
    weights = expect_shape(out["weights"], (batch, k, seq), "weights (batch, k, seq)")
    expect(
        bool(torch.isfinite(weights).all() and torch.isfinite(context).all()), "weights or context contain NaN or inf"
    )
    expect(float(weights.min()) >= 0, f"attention weights must be non-negative; got {float(weights.min()):.3g}")
    sums = weights.sum(dim=-1)
    worst = (sums - 1).abs().max().item()
    expect(
        worst < 1e-5,
        f"each query's weights must sum to 1 over the keys (last axis); a row sums to "
        f"{sums.flatten()[(sums - 1).abs().flatten().argmax()].item():.4g}",
    )
    return context, weights
