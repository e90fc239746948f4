"""The handle hidden tests use to reach student code, the same in both grading doors.

A hidden test never imports student code. It asks the handle to run a short snippet in the student's
namespace and gets plain data back::

    out = student.run(
        "values, attention = scaled_dot_product(q, k, v, attn_drop_rate=0.0, mask=mask)\\n"
        "result = {'values': values, 'attention': attention}",
        q=q, k=k, v=v, mask=mask,
    )

- ``inputs`` (keyword arguments) are tensors, numbers, strings, None, or lists/tuples/dicts of them.
- The snippet sees the student's globals and the inputs, and must set ``result`` (same plain types).
- ``stand_ins=("scaled_dot_product",)`` swaps in correct versions of earlier questions' definitions for
  this call (from ``autograder/<assignment>/stand_ins.py``), so one mistake costs points once.
- Before every snippet python, numpy and torch are seeded with ``handle.seed``: both doors agree.

Two implementations: ``LocalHandle`` (the nbgrader door: the student's own kernel, in-process) and
``KernelHandle`` in ``sandbox/snippets.py`` (the standalone door: a sandboxed child kernel).
"""

from __future__ import annotations

import ast
import contextlib
import io
import warnings

from assignments.course import resolve
from assignments.grading.testkit import runtime
from assignments.grading.testkit.errors import StandInRefused, StudentCodeError, StudentTimeout
from assignments.grading.testkit.kernel_text import describe_exception
from assignments.grading.testkit.stand_ins import defined_names, extract_definitions, stand_in_source
from assignments.grading.testkit.timers import raising_after

# What one ``run`` may take unless the test asks for less: CPU seconds of the student's kernel in the
# sandbox (with its wall-clock ceiling, limits.Limits), wall seconds in process (LocalHandle's alarm).
DEFAULT_TIMEOUT = 60.0
# What a test is told when a snippet's result holds something no door can carry back, in the grader's words
# (ResultTypeError's own text names the keys and types the student's code chose).
RESULT_REFUSED = (
    "the result holds something the grader cannot receive: only tensors, numbers, strings, None and lists, "
    "tuples or dicts of them"
)


def answered_by(notebook) -> dict[str, str]:
    """Each name an answer cell defines -> the grade_id of the first autograded test cell after it."""
    from assignments import notebooks

    owners, pending = {}, set()
    for cell in notebook.cells:
        if cell.get("cell_type") != "code":
            continue
        if notebooks.is_autograded_test(cell):
            owners.update({name: notebooks.grade_id(cell) for name in pending if name not in owners})
            pending = set()
        elif notebooks.is_answer(cell):
            try:
                pending |= {n for node in ast.parse(str(cell.get("source", ""))).body for n in defined_names(node)}
            except (SyntaxError, ValueError, RecursionError):
                continue
    return owners


class StudentHandle:
    """What a hidden test receives as its ``student`` fixture.

    Stand-ins are answer keys: a call receives only the definitions it asks for (``extract_definitions``)
    and, once ``owners`` (definition -> question) and ``order`` (question -> position) are set, only
    after every test of the question each one answers has finished. The suite runs tests in question
    order and sets ``question`` before each test, so "finished" means "an earlier question".
    """

    def __init__(self, assignment, seed: int = 0):
        self.assignment = resolve(assignment).name
        self.seed = seed
        self._stand_in_source = stand_in_source(assignment)
        self.owners: dict[str, str] = {}
        self.order: dict[str, int] = {}
        self.question: str | None = None

    def run(self, code: str, *, stand_ins=(), timeout: float | None = None, **inputs):
        stand_ins = tuple(stand_ins)
        try:
            source = extract_definitions(self._stand_in_source, stand_ins) if stand_ins else ""
        except KeyError as error:
            raise KeyError(f"{error.args[0]} in autograder/{self.assignment}/stand_ins.py") from None
        self._check_order(stand_ins)
        return self._run(code, dict(inputs), stand_ins, source, timeout or DEFAULT_TIMEOUT)

    def _check_order(self, stand_ins):
        if self.question not in self.order:
            return
        now = self.order[self.question]
        early = [name for name in stand_ins if name in self.owners and self.order.get(self.owners[name], -1) >= now]
        if early:
            raise StandInRefused(
                f"a test of {self.question} asked for the stand-in(s) {early} before "
                f"their question(s) {sorted({self.owners[n] for n in early})} were scored"
            )

    def _run(self, code, inputs, stand_ins, stand_in_source, timeout):
        raise NotImplementedError


def _alarm(seconds: float):
    """Raise StudentTimeout after ``seconds`` of wall time (main thread only; elsewhere there is no limit)."""
    return raising_after(seconds, "wall", lambda: StudentTimeout(f"your code did not finish within {seconds:g} s"))


class LocalHandle(StudentHandle):
    """Runs snippets in this process, in ``namespace`` (the nbgrader door, and in-process grading).

    Inputs and results make the same round trip through ``torch.save``/``torch.load(weights_only=True)``
    as in the standalone door, so a test sees identical data whichever door it runs behind, and student
    code that modifies an input in place changes its own copy, never the test's tensors.
    """

    def __init__(self, namespace: dict, assignment, seed: int = 0):
        super().__init__(assignment, seed)
        self.namespace = namespace

    def _run(self, code, inputs, stand_ins, stand_in_source, timeout):
        sink = io.StringIO()
        inputs = runtime.from_bytes(runtime.to_bytes(inputs))
        try:
            with (
                _alarm(timeout),
                warnings.catch_warnings(),
                contextlib.redirect_stdout(sink),
                contextlib.redirect_stderr(sink),
            ):
                warnings.simplefilter("ignore")
                result = runtime.run_snippet(self.namespace, code, inputs, stand_in_source, stand_ins, self.seed)
        except StudentTimeout:
            raise
        except runtime.ResultTypeError as error:  # its text names keys and types the student's code chose
            raise StudentCodeError(runtime.NO_RESULT if str(error) == runtime.NO_RESULT else RESULT_REFUSED) from None
        except BaseException as error:  # SystemExit and KeyboardInterrupt from student code included
            if isinstance(error, KeyboardInterrupt) and not isinstance(error, StudentTimeout):
                raise
            raise StudentCodeError(describe_exception(error)) from None
        return runtime.from_bytes(runtime.to_bytes(result))
