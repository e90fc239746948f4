"""apply_rotary: values against complex multiplication in float64 (oracles.rotary)."""

import torch

from assignments.grading.testkit import GradingFailure, StudentCodeError, expect_close, question
from autograder.rnn_attention.inputs import seeded
from autograder.rnn_attention.oracles import rotary


@question("rotary_tests")
def test_values_against_complex_multiplication(student):
    for seed, (shape, positions) in enumerate([((2, 3, 6), [7, 0, 3]), ((1, 4, 8), [10, 11, 12, 13])]):
        g = torch.Generator().manual_seed(600 + seed)
        x, positions = seeded(shape, g), torch.tensor(positions)
        try:
            out = student.run("result = apply_rotary(x, positions)", x=x, positions=positions)
        except StudentCodeError as error:
            raise GradingFailure(f"apply_rotary on x of shape {shape}: your code raised {error}") from None
        expect_close(out, rotary(x, positions).float(), f"apply_rotary(x, positions) for x of shape {shape}", atol=1e-4)
