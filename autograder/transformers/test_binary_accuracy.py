"""Hidden tests: binary accuracy from logits."""

import torch

from assignments.grading.testkit import behaviour, expect, question


@question("binary_accuracy_tests")
@behaviour("binary_accuracy", "sigmoid of logits, threshold 0.5", mutant="accuracy_without_sigmoid")
@behaviour("binary_accuracy", "reduction: mean over the batch", mutant="accuracy_without_sigmoid")
def test_binary_accuracy(student):
    g = torch.Generator().manual_seed(70)
    for n in (1, 7, 50, 333):  # 1: a batch of one
        logits = torch.randn(n, generator=g) * 0.8  # many logits in (-0.5, 0.5)
        y = torch.randint(0, 2, (n,), generator=g).float()
        got = student.run("result = binary_accuracy(logits, y)", logits=logits, y=y)
        expect(
            isinstance(got, (float, torch.Tensor)), f"binary_accuracy should return a number; got {type(got).__name__}"
        )
        got = float(got)
        expected = ((torch.sigmoid(logits) > 0.5).float() == y).float().mean().item()
        expect(
            abs(got - expected) < 1e-6,
            f"accuracy over a batch of {n}: got {got:.4f}, expected {expected:.4f} "
            f"(the inputs are logits: apply a sigmoid, round at 0.5, and return "
            f"the fraction correct)",
        )


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("binary_accuracy", "logits", "(1,), (7,), (50,), (333,)", None),
    ("binary_accuracy", "y", "random 0.0 / 1.0 labels of sizes 1, 7, 50, 333", None),
]
