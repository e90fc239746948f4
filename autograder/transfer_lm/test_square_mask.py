"""square_mask_tests: generate_square_subsequent_mask against PyTorch's own causal mask.

Both forms nn.TransformerEncoder accepts are graded alike (the skeleton says so): the float mask (0 allowed,
-inf blocked) and the boolean one with True = blocked, read through ``as_additive`` into float form.
"""

import torch
import torch.nn.functional as F

from assignments.grading.testkit import behaviour, expect, expect_shape, question
from autograder.transfer_lm.oracles import as_additive, causal_mask

SIZES = [1, 2, 3, 6, 11]


def _masks(student):
    return student.run("result = [generate_square_subsequent_mask(n) for n in sizes]", sizes=SIZES)


def _entries(n):
    return "1 entry is" if n == 1 else f"{n} entries are"


def _additive(mask):
    expect(
        mask.dtype.is_floating_point or mask.dtype == torch.bool,
        f"the mask must be a float tensor (0.0 where attention is allowed, -inf where it is not) or a bool "
        f"tensor with True where attention is blocked; got dtype {mask.dtype}",
    )
    return as_additive(mask)


@question("square_mask_tests")
@behaviour("generate_square_subsequent_mask", "0 on and below the diagonal, -inf above it", mutant="mask_transposed")
@behaviour(
    "generate_square_subsequent_mask", "a boolean mask is True where attention is blocked", mutant="mask_bool_inverted"
)
def test_mask_equals_pytorch_causal_mask(student):
    masks = _masks(student)
    for size, mask in zip(SIZES, masks):
        mask = _additive(expect_shape(mask, (size, size), f"the mask for size {size}"))
        oracle = causal_mask(size)
        blocked, allowed = torch.isneginf(oracle), oracle == 0
        wrong_blocked = int((~torch.isneginf(mask) & blocked).sum())
        wrong_allowed = int((mask != 0)[allowed].sum())
        expect(
            wrong_allowed == 0,
            f"size {size}: {_entries(wrong_allowed)} on or below the diagonal (j <= i) not 0.0; "
            f"a position must be allowed to see itself and the past",
        )
        expect(
            wrong_blocked == 0,
            f"size {size}: {_entries(wrong_blocked)} above the diagonal (j > i) not -inf; the future must be blocked",
        )


@question("square_mask_tests")
@behaviour("generate_square_subsequent_mask", "a position may attend to itself", mutant="mask_diagonal_blocked")
@behaviour(
    "generate_square_subsequent_mask",
    "exact boundary: j = i allowed, j = i + 1 blocked (triu with diagonal=1, not 0)",
    mutant="mask_diagonal_blocked",
    kind="boundary",
)
def test_mask_makes_attention_causal(student):
    # Use the student's mask in real attention (batch 2, heads 3, seq 9, head_dim 4): every row of the
    # attention weights must sum to 1 and put exactly zero weight on later positions.
    size = 9
    mask = student.run("result = generate_square_subsequent_mask(9)")
    mask = _additive(expect_shape(mask, (size, size), "the mask for size 9"))
    g = torch.Generator().manual_seed(7)
    q, k = torch.randn(2, 3, size, 4, generator=g), torch.randn(2, 3, size, 4, generator=g)
    weights = F.softmax(q @ k.transpose(-1, -2) / 2.0 + mask.float(), dim=-1)
    expect(
        bool(torch.isfinite(weights).all()),
        "with your mask some position cannot attend to anything (a row that is all -inf gives NaN)",
    )
    future = weights.masked_select(torch.ones(size, size, dtype=torch.bool).triu(1).expand_as(weights))
    expect(
        future.abs().max().item() == 0,
        f"with your mask positions attend to later positions (weight up to {future.abs().max().item():.2g}; "
        f"expected exactly 0)",
    )
    present = weights.masked_select(torch.ones(size, size, dtype=torch.bool).tril().expand_as(weights))
    expect(present.min().item() > 0, "with your mask some position is blocked from itself or from the past")


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "generate_square_subsequent_mask",
        "float or boolean dtype",
        "Both forms nn.TransformerEncoder accepts are allowed by the skeleton; variants square_mask_bool and square_mask_pytorch_tutorial keep full marks.",
    ),
    (
        "generate_square_subsequent_mask",
        "device",
        "It takes no tensor whose device it could follow, only a size: the mask is built on the CPU and its callers move it, as train_lm's skeleton says.",
        "device",
    ),
    ("generate_square_subsequent_mask", "randomness", "It draws no random number.", "randomness"),
    (
        "generate_square_subsequent_mask",
        "validation order",
        "It checks no argument and has no special case: every size is built by the same triangle.",
        "validation-order",
    ),
    ("generate_square_subsequent_mask", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "generate_square_subsequent_mask",
        "degenerate values",
        "No value is special to it: size 1 (nothing to block) comes from the same triangle as any size and is among test_mask_equals_pytorch_causal_mask's sizes.",
        "degenerate",
    ),
    (
        "generate_square_subsequent_mask",
        "state across calls",
        "A pure function of the size: it keeps nothing between calls.",
        "state",
    ),
    (
        "generate_square_subsequent_mask",
        "hyper-parameters that are not whole numbers",
        "Its one argument is a count of tokens, always a whole number.",
        "non-integer",
    ),
    ("generate_square_subsequent_mask", "optimisation steps", "It takes no optimisation step.", "step-tolerance"),
    ("generate_square_subsequent_mask", "a batch of one", "It takes no batch, only a sequence length.", "batch-of-one"),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("generate_square_subsequent_mask", "size", "1, 2, 3, 6, 9, 11", None),
]
