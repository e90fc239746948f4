"""CausalScaledDotAttention: exact zeros above the diagonal, outputs at position i independent of
inputs after i, and values against F.scaled_dot_product_attention(is_causal=True)."""

import torch

from assignments.grading.testkit import GradingFailure, behaviour, expect, expect_close, expect_tensor, question
from autograder.rnn_attention.checks import LOAD_STATE, expect_loaded, expect_normalised, run_attention
from autograder.rnn_attention.inputs import random_dot_state, seeded
from autograder.rnn_attention.oracles import dot_attention

# (batch, seq, hidden); the last is the edge of one sequence of one position, where the mask hides nothing
SHAPES = [(2, 6, 5), (3, 4, 7), (1, 1, 4)]

RUN_TWICE = (
    LOAD_STATE
    + """
attention = CausalScaledDotAttention(hidden_size)
load = load_grader_state(attention, state)
first, _ = attention(x, x, x)
second, _ = attention(changed, changed, changed)
result = {"first": first, "second": second, "load": load}
"""
)


@question("causal_attention_tests")
@behaviour(
    "CausalScaledDotAttention",
    "weights exactly 0 after the query, the diagonal allowed",
    mutant="causal_off_by_one_diagonal",
)
@behaviour(
    "CausalScaledDotAttention", "mask applied before the softmax, rows sum to 1", mutant="causal_mask_after_softmax"
)
@behaviour(
    "CausalScaledDotAttention",
    "a batch of one of one position (the last shape): context and weights keep their batch axis",
    mutant="causal_context_squeezed",
    kind="batch-of-one",
)
def test_causal_weights_are_exactly_zero_after_the_query(student):
    for seed, (batch, seq, hidden) in enumerate(SHAPES):
        x = seeded((batch, seq, hidden), torch.Generator().manual_seed(80 + seed))
        out = run_attention(student, "CausalScaledDotAttention", x, x, x)
        _, weights = expect_normalised(out, batch, seq, seq, hidden)
        future = torch.ones(seq, seq, dtype=torch.bool).triu(1)
        leaked = weights[:, future].abs().max().item() if seq > 1 else 0.0
        expect(
            leaked == 0,
            f"query i must give exactly zero weight to keys j > i (seq {seq}); found weight "
            f"{leaked:.3g} on a later key",
        )
        expect(
            bool((weights.diagonal(dim1=1, dim2=2) > 0).all()),
            "each query must be allowed to attend to its own position (j == i)",
        )


@question("causal_attention_tests")
@behaviour("CausalScaledDotAttention", "outputs at position i ignore inputs after i", mutant="causal_mask_wrong_axis")
def test_causal_outputs_ignore_later_inputs(student):
    batch, seq, hidden = 2, 7, 5
    g = torch.Generator().manual_seed(90)
    state = random_dot_state(hidden, g)
    x = seeded((batch, seq, hidden), g)
    for position in (0, 3, 5):
        changed = x.clone()
        changed[:, position + 1 :] = seeded((batch, seq - position - 1, hidden), g)
        out = student.run(RUN_TWICE, hidden_size=hidden, state=state, x=x, changed=changed)
        expect_loaded(out["load"], state, "CausalScaledDotAttention")
        kept = (out["first"][:, : position + 1] - out["second"][:, : position + 1]).abs().max().item()
        expect(
            kept < 1e-6,
            f"changing the inputs after position {position} changed the output at positions "
            f"0..{position} by up to {kept:.3g}; they must not depend on later inputs",
        )


@question("causal_attention_tests")
@behaviour(
    "CausalScaledDotAttention",
    "values against F.scaled_dot_product_attention(is_causal=True)",
    mutant="causal_no_scaling",
)
@behaviour(
    "CausalScaledDotAttention",
    "keys and values read from their own arguments, not from the queries",
    mutant="causal_projects_queries_thrice",
)
@behaviour(
    "CausalScaledDotAttention",
    "the scale sqrt(hidden_size) where it is not a whole number (hidden 5 and 7)",
    mutant="causal_whole_number_scale",
    kind="non-integer",
)
@behaviour(
    "CausalScaledDotAttention",
    "a batch of one of one position (the last shape)",
    mutant="causal_context_squeezed",
    kind="batch-of-one",
)
def test_causal_matches_reference(student):
    for seed, (batch, seq, hidden) in enumerate(SHAPES):
        g = torch.Generator().manual_seed(100 + seed)
        state = random_dot_state(hidden, g)
        # Three different tensors of one length: the decoder passes x three times, but the contract names
        # three arguments, and keys and values must come from their own.
        queries, keys, values = (seeded((batch, seq, hidden), g) * 2 for _ in range(3))
        expected_context, expected_weights = dot_attention(state, queries, keys, values, causal=True)
        out = run_attention(student, "CausalScaledDotAttention", queries, keys, values, state)
        shape = f"batch {batch}, seq {seq}, hidden {hidden}"
        try:
            expect_close(out["weights"], expected_weights, f"weights ({shape})", atol=1e-5)
            expect_close(out["context"], expected_context, f"context ({shape})", atol=1e-5)
        except GradingFailure as failure:
            # Name the mistake whose values the answer reproduces, when it is one of the two usual ones.
            from_queries, _ = dot_attention(state, queries, queries, queries, causal=True)
            unscaled, _ = dot_attention(state, queries, keys, values, causal=True, scale=False)
            context = out["context"]
            if isinstance(context, torch.Tensor) and context.shape == unscaled.shape:
                if torch.allclose(context.float(), from_queries, atol=1e-5):
                    raise GradingFailure(
                        f"context ({shape}) is what the queries alone give: project the keys argument with Wk and "
                        f"the values argument with Wv (here they are three different tensors)"
                    ) from None
                if torch.allclose(context.float(), unscaled, atol=1e-5):
                    raise GradingFailure(
                        f"context ({shape}) looks unscaled: divide the scores by sqrt(hidden_size)"
                    ) from None
            raise failure


RUN_LENGTHS = (
    LOAD_STATE
    + """
def fresh():
    module = CausalScaledDotAttention(hidden_size)
    return module, load_grader_state(module, state)

attention, load = fresh()
alone = [list(fresh()[0](x, x, x)) for x in sequences]
result = {"load": load, "alone": alone, "in_turn": [list(attention(x, x, x)) for x in sequences]}
"""
)


@question("causal_attention_tests")
@behaviour(
    "CausalScaledDotAttention",
    "state across calls: one module serves sequences of several lengths in turn (short, long, short)",
    mutant="causal_mask_cached_at_first_length",
    kind="state",
)
def test_one_module_serves_several_lengths(student):
    # The transformer decoder calls one module on every prefix length it generates. A mask kept from the
    # first call (lengths 3, then 6, then 2 here) has the wrong size afterwards; a buffer built once for a
    # maximum length and sliced, as nanoGPT does, is fine. Each call is compared with a fresh module with
    # the same weights given that sequence alone, so a wrong formula costs points in the other tests only.
    batch, hidden = 2, 5
    g = torch.Generator().manual_seed(110)
    state = random_dot_state(hidden, g)
    sequences = [seeded((batch, seq, hidden), g) for seq in (3, 6, 2)]
    out = student.run(RUN_LENGTHS, hidden_size=hidden, state=state, sequences=sequences)
    expect_loaded(out["load"], state, "CausalScaledDotAttention")
    for call, (x, alone, in_turn) in enumerate(zip(sequences, out["alone"], out["in_turn"]), start=1):
        what = (
            f"on call {call} of 3 on one module (sequence length {x.shape[1]}, after lengths 3, 6, 2 in turn), "
            f"compared with a fresh module given that sequence alone"
        )
        for index, name in enumerate(("context", "weights")):
            expected = expect_tensor(alone[index], f"{name} of a fresh module")
            expect_close(
                in_turn[index],
                expected.float(),
                f"{name} {what}: keep nothing from one call to the next (build the mask for each call's own "
                f"length, or slice one built for a larger length)",
                atol=1e-6,
            )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "CausalScaledDotAttention",
        "the mask's form (bool, float -inf, -9e15)",
        "Any form that gives exactly 0 is allowed; variants causal_pytorch_tutorial_mask and causal_uva_tutorial keep full marks.",
    ),
    ("CausalScaledDotAttention", "train vs eval mode, randomness", "No dropout and nothing sampled.", "randomness"),
    (
        "CausalScaledDotAttention",
        "the mask kept as a buffer (nanoGPT's registered `bias`)",
        "Allowed in the skeleton's words: the tests load the layers' weights by name and leave buffers alone; variant causal_nanogpt_mask_buffer keeps full marks.",
    ),
    (
        "CausalScaledDotAttention",
        "validation order",
        "It checks no argument and has no special case.",
        "validation-order",
    ),
    (
        "CausalScaledDotAttention",
        "exact boundaries",
        "Its one boundary, the diagonal (j == i kept, j == i + 1 hidden), is the exact-zero test's subject, under its own row.",
        "boundary",
    ),
    (
        "CausalScaledDotAttention",
        "a sort's ties",
        "It sorts nothing; equal scores simply share the softmax's weight.",
        "ties",
    ),
    (
        "CausalScaledDotAttention",
        "degenerate values",
        "Its degenerate input, one position, where the mask hides nothing, is among the tested shapes; the first query's row, which keeps one key only, is in every shape.",
        "degenerate",
    ),
    (
        "CausalScaledDotAttention",
        "device of what it makes (the mask)",
        "The notebook runs the character models on the CPU, and the tutorial forms the skeleton allows build their mask there (variants causal_pytorch_tutorial_mask and causal_uva_tutorial keep full marks); requiring the inputs' device would take marks for a case the notebook never meets.",
        "device",
    ),
    ("CausalScaledDotAttention", "optimisation steps", "It takes no optimisation step.", "step-tolerance"),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("CausalScaledDotAttention", "hidden_size", "4, 5, 7", None),
    (
        "CausalScaledDotAttention",
        "queries",
        "(batch, seq, hidden) with batch 1, 2, 3 and seq 1, 2, 3, 4, 6, 7; one module called on seq 3, 6, 2 in turn",
        None,
    ),
    ("CausalScaledDotAttention", "keys", "the queries' shape: the queries tensor itself, and another tensor", None),
    ("CausalScaledDotAttention", "values", "the queries' shape: the queries tensor itself, and another tensor", None),
]
