"""RMSNorm: values against the float64 formula (oracles.rms_norm) on the grader's weights."""

import torch

from assignments.grading.testkit import GradingFailure, StudentCodeError, expect, expect_close, question
from autograder.rnn_attention.checks import LOAD_STATE, expect_loaded
from autograder.rnn_attention.inputs import seeded
from autograder.rnn_attention.oracles import rms_norm

RUN_NORM = (
    LOAD_STATE
    + """
norm = RMSNorm(hidden_size)
load = load_grader_state(norm, {"weight": weight})
result = {"out": norm(x), "load": load}
"""
)


@question("rms_norm_tests")
def test_values_against_the_formula(student):
    for seed, shape in enumerate([(2, 3, 5), (4, 7), (1, 1, 3)]):
        g = torch.Generator().manual_seed(500 + seed)
        hidden = shape[-1]
        weight = 1 + seeded((hidden,), g, 0.5)
        x = seeded(shape, g) + 0.5
        try:
            out = student.run(RUN_NORM, hidden_size=hidden, weight=weight, x=x)
        except StudentCodeError as error:
            raise GradingFailure(f"RMSNorm({hidden}) on x of shape {shape}: your code raised {error}") from None
        expect(isinstance(out, dict), "the grader could not read what RMSNorm returned")
        expect_loaded(out.get("load"), {"weight": weight}, "RMSNorm")
        expect_close(out.get("out"), rms_norm(x, weight).float(), f"RMSNorm(x) for x of shape {shape}")
