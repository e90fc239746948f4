"""What hidden tests import: the question marker and checks whose messages are safe to show students.

Messages say what is wrong and what was expected in words or in summary numbers ("max difference
0.31, tolerance 1e-5"), never the expected tensor or the test's code. Run pytest with ``--assert=plain``
(the runner does) so a bare ``assert`` shows only its message.
"""

from __future__ import annotations

import pytest
import torch

from assignments.grading.testkit.errors import GradingFailure
from assignments.grading.testkit.kernel_text import printable_prefix, vocabulary


def question(grade_id: str, points: float | None = None):
    """Mark a test as scoring the autograded test cell ``grade_id``: worth ``points`` of it when given (a
    deliberate weight), else an equal share of what the cell's tests with their own points leave
    (``assignments.points.shares``)."""
    return pytest.mark.question(grade_id) if points is None else pytest.mark.question(grade_id, points=points)


def behaviour(definition: str, behaviour: str, mutant: str, kind: str = ""):
    """A row of the assignment's behaviour map, on the test it describes: this test checks ``behaviour``
    of the graded ``definition``, and the mutant ``mutant`` (a file stem in ``mutants/``) shows it can
    fail; ``kind`` names the row's kind when it is one every definition must answer for
    (``selftest.kinds.KINDS``). The self-test reads these statically (``selftest.behaviour_rows.behaviour_map``);
    at run time the decorator leaves the test as it is."""
    return lambda test: test


def kernel_value(value) -> str:
    """The only way a message may mention something the student's kernel returned (a name, a key, a
    string, a number it reported): its type when Python names it, and a short printable prefix of its repr
    drawn from the submission's kernel-text budget (``kernel_text``), never the whole. Prefer the grader's
    words: how many, which expected names are missing."""
    kind = vocabulary(type(value).__name__, "object")
    prefix = printable_prefix(repr(value))
    return f"{kind}: {prefix}" if prefix else kind


def kernel_shape(value) -> str:
    """The shape of a tensor the kernel returned, as kernel text: a tensor with a zero-size axis may have
    any sizes at all on its other axes, so the numbers are the kernel's choice and draw from the budget."""
    shown = printable_prefix(str(tuple(getattr(value, "shape", ()))))
    return shown or "another shape"


def expect(condition, message: str) -> None:
    if not condition:
        raise GradingFailure(message)


def expect_tensor(value, what: str) -> torch.Tensor:
    expect(isinstance(value, torch.Tensor), f"{what} should be a torch.Tensor; got {type(value).__name__}")
    return value


def expect_shape(value, shape, what: str) -> torch.Tensor:
    tensor = expect_tensor(value, what)
    expect(tuple(tensor.shape) == tuple(shape), f"{what} should have shape {tuple(shape)}; got {kernel_shape(tensor)}")
    return tensor


def expect_close(actual, expected: torch.Tensor, what: str, rtol: float = 1e-4, atol: float = 1e-5) -> None:
    """Shape first, then values; the message gives the largest difference, not the expected values."""
    tensor = expect_shape(actual, expected.shape, what)
    tensor = tensor.to(expected.dtype)
    expect(bool(torch.isfinite(tensor).all()), f"{what} contains NaN or inf")
    if not torch.allclose(tensor, expected, rtol=rtol, atol=atol):
        diff = (tensor - expected).abs().max().item()
        raise GradingFailure(
            f"{what} does not match the reference: largest difference {diff:.3g} "
            f"(allowed: atol={atol:g} plus rtol={rtol:g} of the value)"
        )


def expect_between(value, low: float, high: float, what: str) -> None:
    expect(
        isinstance(value, (int, float)) and not isinstance(value, bool),
        f"{what} should be a number; got {type(value).__name__}",
    )
    expect(low <= value <= high, f"{what} should be between {low:g} and {high:g}; got {value:.4g}")
