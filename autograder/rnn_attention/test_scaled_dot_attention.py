"""ScaledDotAttention: shapes and normalisation over the keys, and values against
F.scaled_dot_product_attention with copied projections (which fixes the 1/sqrt(hidden) scaling)."""

import math

import torch
import torch.nn.functional as F

from assignments.grading.testkit import GradingFailure, behaviour, expect_close, question
from autograder.rnn_attention.checks import expect_normalised, run_attention
from autograder.rnn_attention.inputs import random_dot_state, seeded
from autograder.rnn_attention.oracles import dot_attention

# (batch, k, seq, hidden): k != seq so a wrong axis shows; the last is a batch of one with the recurrent
# decoder's single query
SHAPES = [(3, 2, 7, 5), (2, 4, 3, 6), (1, 1, 4, 3)]


def q_proj_scores(state, queries, keys):
    """The unscaled scores of the grader's projections: Wq q . Wk k."""
    q = F.linear(queries, state["Wq.weight"], state["Wq.bias"])
    k = F.linear(keys, state["Wk.weight"], state["Wk.bias"])
    return q @ k.transpose(1, 2)


def _inputs(seed, batch, k, seq, hidden):
    g = torch.Generator().manual_seed(seed)
    return seeded((batch, k, hidden), g), seeded((batch, seq, hidden), g), seeded((batch, seq, hidden), g), g


@question("scaled_dot_attention_tests")
@behaviour("ScaledDotAttention", "softmax over the keys", mutant="scaled_dot_softmax_over_queries")
@behaviour(
    "ScaledDotAttention",
    "a batch of one with one query (the last shape): context and weights keep their batch axis",
    mutant="scaled_dot_outputs_squeezed",
    kind="batch-of-one",
)
def test_scaled_dot_shapes_and_weights_sum_to_one_over_keys(student):
    for seed, (batch, k, seq, hidden) in enumerate(SHAPES):
        q, keys, values, _ = _inputs(60 + seed, batch, k, seq, hidden)
        expect_normalised(run_attention(student, "ScaledDotAttention", q, keys, values), batch, k, seq, hidden)


@question("scaled_dot_attention_tests")
@behaviour("ScaledDotAttention", "scores divided by sqrt(hidden_size)", mutant="scaled_dot_no_scaling")
@behaviour(
    "ScaledDotAttention", "the scale is the square root, not hidden_size itself", mutant="scaled_dot_divides_by_hidden"
)
@behaviour("ScaledDotAttention", "context averages the projected values", mutant="scaled_dot_context_from_keys")
@behaviour(
    "ScaledDotAttention",
    "the scale sqrt(hidden_size) where it is not a whole number (hidden 5, 6 and 3)",
    mutant="scaled_dot_whole_number_scale",
    kind="non-integer",
)
@behaviour(
    "ScaledDotAttention",
    "a batch of one with one query (the last shape)",
    mutant="scaled_dot_outputs_squeezed",
    kind="batch-of-one",
)
def test_scaled_dot_matches_reference_with_scaling(student):
    for seed, (batch, k, seq, hidden) in enumerate(SHAPES):
        q, keys, values, g = _inputs(70 + seed, batch, k, seq, hidden)
        state = random_dot_state(hidden, g)
        # Larger inputs make a missing or wrong scale factor change the weights clearly.
        q, keys = q * 2, keys * 2
        expected_context, expected_weights = dot_attention(state, q, keys, values)
        out = run_attention(student, "ScaledDotAttention", q, keys, values, state)
        shape = f"batch {batch}, k {k}, seq {seq}, hidden {hidden}"
        try:
            expect_close(out["weights"], expected_weights, f"weights ({shape})", atol=1e-5)
        except GradingFailure as failure:
            _, unscaled = dot_attention(state, q, keys, values, scale=False)
            if out["weights"].shape == unscaled.shape and torch.allclose(out["weights"].float(), unscaled, atol=1e-5):
                raise GradingFailure(
                    f"weights ({shape}) look unscaled: divide the scores by sqrt(hidden_size)"
                ) from None
            rounded = q_proj_scores(state, q, keys) / int(math.sqrt(hidden))
            if out["weights"].shape == unscaled.shape and torch.allclose(
                out["weights"].float(), rounded.softmax(dim=-1), atol=1e-5
            ):
                raise GradingFailure(
                    f"weights ({shape}) look scaled by a whole number: divide the scores by sqrt({hidden}) = "
                    f"{math.sqrt(hidden):.4g} itself, not by a rounded square root"
                ) from None
            raise failure
        expect_close(out["context"], expected_context, f"context ({shape})", atol=1e-5)


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "ScaledDotAttention",
        "gradient flow",
        "Only differentiable library calls are needed, and the in-place pitfall is graded once, on the additive question.",
    ),
    (
        "ScaledDotAttention",
        "train vs eval mode, randomness, inputs",
        "No dropout and nothing sampled; the inputs are only read.",
    ),
    (
        "ScaledDotAttention",
        "buffers of its own (a stored 1/sqrt(d))",
        "Allowed in the skeleton's words: the tests load the layers' weights by name and leave buffers alone; variant scaled_dot_scale_buffer keeps full marks.",
    ),
    (
        "ScaledDotAttention",
        "randomness",
        "It draws no random number: its layers' initial values are replaced by the grader's weights.",
        "randomness",
    ),
    ("ScaledDotAttention", "validation order", "It checks no argument and has no special case.", "validation-order"),
    ("ScaledDotAttention", "exact boundaries", "It compares nothing with a threshold.", "boundary"),
    (
        "ScaledDotAttention",
        "a sort's ties",
        "It sorts nothing; equal scores simply share the softmax's weight.",
        "ties",
    ),
    (
        "ScaledDotAttention",
        "degenerate values",
        "Its degenerate input, a single query, is among the tested shapes, and the formula has no special case; it takes no mask, so no row can be all hidden.",
        "degenerate",
    ),
    (
        "ScaledDotAttention",
        "state across calls",
        "forward keeps nothing on the module between calls (a stored scale does not depend on the inputs).",
        "state",
    ),
    (
        "ScaledDotAttention",
        "device of what it makes",
        "The only tensor it may make is the scale, a number or a 0-dim tensor, which PyTorch combines with tensors on any device.",
        "device",
    ),
    ("ScaledDotAttention", "optimisation steps", "It takes no optimisation step.", "step-tolerance"),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("ScaledDotAttention", "hidden_size", "3, 5, 6", None),
    ("ScaledDotAttention", "queries", "(batch, k, hidden) with batch 1, 2, 3 and k 1, 2, 4", None),
    ("ScaledDotAttention", "keys", "(batch, seq, hidden) with seq 3, 4, 7", None),
    ("ScaledDotAttention", "values", "the keys' shape, another tensor", None),
]
