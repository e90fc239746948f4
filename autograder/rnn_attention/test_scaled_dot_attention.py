"""ScaledDotAttention: shapes and normalisation over the keys, and values against
F.scaled_dot_product_attention with copied projections (which fixes the 1/sqrt(hidden) scaling)."""

import torch

from assignments.grading.testkit import GradingFailure, behaviour, expect_close, question
from autograder.rnn_attention.checks import expect_normalised, run_attention
from autograder.rnn_attention.inputs import random_dot_state, seeded
from autograder.rnn_attention.oracles import dot_attention

# (batch, k, seq, hidden): k != seq so a wrong axis shows; the last is a batch of one with the recurrent
# decoder's single query
SHAPES = [(3, 2, 7, 5), (2, 4, 3, 6), (1, 1, 4, 3)]


def _inputs(seed, batch, k, seq, hidden):
    g = torch.Generator().manual_seed(seed)
    return seeded((batch, k, hidden), g), seeded((batch, seq, hidden), g), seeded((batch, seq, hidden), g), g


@question("scaled_dot_attention_tests")
@behaviour("ScaledDotAttention", "softmax over the keys", mutant="scaled_dot_softmax_over_queries")
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
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("ScaledDotAttention", "hidden_size", "3, 5, 6", None),
    ("ScaledDotAttention", "queries", "(batch, k, hidden) with batch 1, 2, 3 and k 1, 2, 4", None),
    ("ScaledDotAttention", "keys", "(batch, seq, hidden) with seq 3, 4, 7", None),
    ("ScaledDotAttention", "values", "the keys' shape, another tensor", None),
]
