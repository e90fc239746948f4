"""Grading trusted notebooks in this process: the reference solution, the mutants, and test authoring.

Student submissions never come here; they go through the standalone door (``standalone.py``). This
path exists because the self-test grades dozens of known notebooks and a fresh kernel for each would
cost minutes: it runs the same cells and the same hidden suite through a ``LocalHandle``.
"""

from __future__ import annotations

import contextlib
import io
import os
import time
import warnings

from assignments import notebooks
from assignments.course import Assignment
from assignments.grading.environment import GRADING_ENV
from assignments.grading.testkit.handle import LocalHandle
from assignments.grading.testkit.kernel_text import KernelTextBudget, budgeted, describe_exception
from assignments.grading.testkit.suite import run_suite, single_threaded_torch
from assignments.results.model import Finding, SubmissionResult, score_questions


@contextlib.contextmanager
def grading_environment():
    """Set the variables a notebook reads to know it is being graded (and must stay offline)."""
    saved = {key: os.environ.get(key) for key in GRADING_ENV}
    os.environ.update(GRADING_ENV)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def execute_cells(
    nb, namespace: dict | None = None, start: int = 0, stop: int | None = None
) -> tuple[dict, list[Finding]]:
    """Exec every non-test code cell into ``namespace``; a failing cell is recorded and skipped.

    ``start`` and ``stop`` run a slice of them (positions in ``notebooks.cells_to_run``; a cell keeps the
    label it has in a whole run), so a run can stop before a cell and go on from it later."""
    namespace = {"__name__": "__main__"} if namespace is None else namespace
    findings = []
    sink = io.StringIO()
    with (
        grading_environment(),
        warnings.catch_warnings(),
        single_threaded_torch(),
        contextlib.redirect_stdout(sink),
        contextlib.redirect_stderr(sink),
    ):
        warnings.simplefilter("ignore")
        for index, cell in list(enumerate(notebooks.cells_to_run(nb)))[start:stop]:
            label = notebooks.grade_id(cell) or f"code cell {index + 1}"
            try:
                exec(compile(cell.source, f"<cell {label}>", "exec"), namespace)
            except BaseException as error:  # noqa: BLE001 - a notebook cell may raise anything
                if isinstance(error, KeyboardInterrupt):
                    raise
                findings.append(
                    Finding("cell-error", f"cell {label} raised {describe_exception(error)}", "warning", label)
                )
    return namespace, findings


def grade_namespace(
    assignment: Assignment,
    namespace: dict,
    findings: list[Finding] | None = None,
    student: str = "reference",
    seed: int = 0,
    selected: list[str] | None = None,
    execute_s: float = 0.0,
) -> SubmissionResult:
    """Run the hidden suite against an already executed namespace (the self-test reuses one ten times)."""
    start = time.perf_counter()
    question_list = assignment.questions
    with grading_environment():
        tests, problems = run_suite(
            assignment, LocalHandle(namespace, assignment, seed=seed), assignment.autograded_order, selected
        )
    findings = list(findings or []) + [Finding("suite-problem", str(problem), "error") for problem in problems]
    return SubmissionResult(
        student=student,
        assignment=assignment.name,
        door="in-process",
        questions=score_questions(question_list, tests),
        findings=findings,
        timings={"execute_s": round(execute_s, 2), "tests_s": round(time.perf_counter() - start, 2)},
    )


def grade_notebook(
    assignment: Assignment, nb, student: str = "reference", seed: int = 0, selected: list[str] | None = None
) -> SubmissionResult:
    """Execute a trusted notebook here and run the hidden suite on it."""
    start = time.perf_counter()
    with budgeted(KernelTextBudget()):  # the cells' errors and the tests' messages share one budget
        namespace, findings = execute_cells(nb)
        return grade_namespace(assignment, namespace, findings, student, seed, selected, time.perf_counter() - start)
