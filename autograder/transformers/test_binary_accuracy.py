"""Hidden tests: binary accuracy from logits."""

import torch

from assignments.grading.testkit import behaviour, expect, question


@question("binary_accuracy_tests")
@behaviour("binary_accuracy", "sigmoid of logits, threshold 0.5", mutant="accuracy_without_sigmoid")
@behaviour("binary_accuracy", "reduction: mean over the batch", mutant="accuracy_without_sigmoid")
@behaviour(
    "binary_accuracy",
    "the boundary: a logit of exactly 0 (sigmoid 0.5) is not above 0.5, so it predicts negative",
    mutant="accuracy_threshold_inclusive",
    kind="boundary",
)
def test_binary_accuracy(student):
    g = torch.Generator().manual_seed(70)
    for n in (1, 7, 50, 333, 12):  # 1: a batch of one; 12: a third of the logits exactly 0
        logits = torch.randn(n, generator=g) * 0.8  # many logits in (-0.5, 0.5)
        y = torch.randint(0, 2, (n,), generator=g).float()
        if n == 12:
            logits[::3] = 0.0  # sigmoid(0) = 0.5 exactly: on the boundary, which "> 0.5" leaves negative
        got = student.run("result = binary_accuracy(logits, y)", logits=logits, y=y)
        expect(
            isinstance(got, (float, torch.Tensor)), f"binary_accuracy should return a number; got {type(got).__name__}"
        )
        got = float(got)
        expected = ((torch.sigmoid(logits) > 0.5).float() == y).float().mean().item()
        expect(
            abs(got - expected) < 1e-6,
            f"accuracy over a batch of {n}: got {got:.4f}, expected {expected:.4f} "
            f"(the inputs are logits: apply a sigmoid, predict positive where it is above 0.5, and return "
            f"the fraction correct"
            + (
                "; a logit of exactly 0 has sigmoid 0.5, which is not above 0.5: a negative prediction)"
                if n == 12
                else ")"
            ),
        )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    ("binary_accuracy", "randomness", "binary_accuracy draws no random number.", "randomness"),
    ("binary_accuracy", "validation order", "It checks no argument and has no special case.", "validation-order"),
    ("binary_accuracy", "a sort's ties", "binary_accuracy sorts and ranks nothing.", "ties"),
    (
        "binary_accuracy",
        "degenerate values",
        "Its one degenerate input, an empty batch, never reaches it: a DataLoader yields no empty batch, and the mean over none is not in the contract.",
        "degenerate",
    ),
    ("binary_accuracy", "state across calls", "A function of its arguments alone.", "state"),
    (
        "binary_accuracy",
        "device of what it makes",
        "The reference makes no tensor of its own (every value comes from logits), and the loops read the result with .item(), so a result on another device changes nothing a student or a test sees.",
        "device",
    ),
    ("binary_accuracy", "hyper-parameters that are not whole numbers", "It has no hyper-parameter.", "non-integer"),
    ("binary_accuracy", "optimisation steps", "It takes no optimisation step.", "step-tolerance"),
    (
        "binary_accuracy",
        "a batch of one",
        "It works elementwise and averages, reshaping nothing; a batch of one logit is among the test's sizes.",
        "batch-of-one",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("binary_accuracy", "logits", "(1,), (7,), (50,), (333,), (12,) with four logits exactly 0", None),
    ("binary_accuracy", "y", "random 0.0 / 1.0 labels of sizes 1, 7, 12, 50, 333", None),
]
