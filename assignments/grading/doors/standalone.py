"""The standalone door: grade ONE submission with no student code in this process. Never raises.

    result = grade_submission("transformers", Path("alice.ipynb"), "alice")

1. **Read** the file defensively. Other encodings than UTF-8 (``decoding.decode``), Windows line
   endings and editors' extra metadata are read and noted. A missing file, binary data, invalid JSON,
   not a notebook, an nbformat older than 4 (converted, and noted) or newer than this grader knows: each
   is a clear finding and a ``rejected`` result with zero autograded points.
2. **Check** it is this assignment's notebook (``restore.check_assignment``), then **restore** locked
   and test cells from the template by grade_id (``restore.restore``): a student cannot change which
   tests run or what they are worth; every change is a finding. Cells whose grade_id was lost or
   renamed are first found by content (``recover.recover``), and that recovery is a finding too.
3. **Audit** the student's cells statically for things worth telling an instructor about (leaving the
   kernel, monkeypatching torch/builtins/pytest, reaching for grader files, defining grader names). The
   audit decides nothing; the sandbox is what makes these harmless. The **shortcut check**
   (``shortcuts.check_restored``) finds answers that use a library call their question forbids; its
   penalty, if the question declares one, is applied after scoring (``results.model.apply_penalties``).
Steps 1 to 3 are ``submission.prepare``, which every other consumer of a submission calls as well.

4. **Execute** the restored cells in a sandboxed kernel (``sandbox.Sandbox``), then **test**: the hidden
   pytest suite runs here, in this trusted process, and reaches student code only through
   ``KernelHandle``. Scores come from ``results.score_questions``; printed output is never read as one.

The assignment is an ``Assignment`` of a course (``assignments/course.py``): tests grade a toy course the
same way. Grading uses its release notebook (or, before a release exists, the same blank notebook made
from the source with nbgrader's preprocessors) and the source notebook's points.
"""

from __future__ import annotations

import time
from pathlib import Path

from assignments import notebooks
from assignments.course import Assignment
from assignments.grading.sandbox.limits import Limits
from assignments.grading.sandbox.session import KernelHandle, Sandbox, score_like_output
from assignments.grading.submission.preparation import prepare
from assignments.grading.testkit.errors import SandboxError
from assignments.grading.testkit.handle import answered_by
from assignments.grading.testkit.kernel_text import (
    SUBMISSION_KERNEL_TEXT_CHARS,
    KernelTextBudget,
    budgeted,
    describe_exception,
)
from assignments.grading.testkit.suite import run_suite
from assignments.results.model import Finding, SubmissionResult, apply_penalties, score_questions


def grade_submission(
    assignment: Assignment,
    submission,
    student: str = "student",
    *,
    seed: int = 0,
    limits: Limits | None = None,
    hide: tuple = (),
    source_file: str | None = None,
    skip_tests=(),
    test_log=None,
    shortcut_rules: dict | None = None,
) -> SubmissionResult:
    """Grade one submission (a path to an .ipynb, or its bytes). Always returns a SubmissionResult.

    ``assignment`` is an ``Assignment`` of any course (tests grade a toy course); its source notebook gives
    the questions, its release the template, its suite folder the hidden tests and stand-ins. ``hide``: more
    folders the sandboxed kernel must not see.

    ``skip_tests`` and ``test_log`` go to ``suite.run_suite`` (the batch uses them to resume a submission
    in a fresh process after the grader was killed in one of its tests). ``shortcut_rules`` replaces the
    source notebook's ``notebooks.shortcut_rules`` (tests use it to try another penalty)."""
    started = time.perf_counter()
    if source_file is None:
        source_file = str(submission) if isinstance(submission, (str, Path)) else ""
    result = SubmissionResult(student=student, assignment=assignment.name, door="standalone", source_file=source_file)
    try:
        question_list = assignment.questions
    except (OSError, ValueError) as error:
        result.status = "rejected"
        result.findings.append(
            Finding("unknown-assignment", f"no source notebook for assignment {assignment.name!r} ({error})", "error")
        )
        result.timings["total_s"] = round(time.perf_counter() - started, 2)
        return result
    # One kernel-text budget for everything this submission's kernel says: cell errors, then the tests. A
    # submission resumed in a fresh process (the batch, after its grader was killed) may have spent it in
    # the process that died, so what is left of it shows no kernel text at all.
    with budgeted(KernelTextBudget(0 if skip_tests else SUBMISSION_KERNEL_TEXT_CHARS)):
        _grade_or_record(
            result,
            assignment,
            submission,
            question_list,
            seed=seed,
            limits=limits or Limits(),
            hide=hide,
            skip_tests=skip_tests,
            test_log=test_log,
            shortcut_rules=shortcut_rules,
        )
    result.timings["total_s"] = round(time.perf_counter() - started, 2)
    return result


def _grade_or_record(result: SubmissionResult, assignment: Assignment, submission, question_list, **options) -> None:
    """``_grade``, with whatever it raised recorded as the grader's failure, not the student's."""
    try:
        _grade(
            result,
            assignment,
            submission,
            question_list,
            **options,
        )
    except BaseException as error:  # noqa: BLE001 - the batch must go on whatever happened here
        if isinstance(error, KeyboardInterrupt):
            raise
        result.status = "rejected"
        result.findings.append(
            Finding(
                "grader-error",
                f"the grader failed on this submission ({describe_exception(error)}); "
                "this is not the student's fault: grade it again or by hand",
                "error",
            )
        )
        if not result.questions:
            result.questions = score_questions(question_list, [])


def _reject(result: SubmissionResult, question_list, finding: Finding) -> None:
    result.status = "rejected"
    result.findings.append(finding)
    result.questions = score_questions(question_list, [])


def _grade(
    result,
    assignment: Assignment,
    submission,
    question_list,
    *,
    seed,
    limits,
    hide,
    skip_tests=(),
    test_log=None,
    shortcut_rules=None,
):
    result.questions = score_questions(question_list, [])  # zero until the tests have run
    prepared = prepare(assignment, submission, shortcut_rules=shortcut_rules)
    result.findings += prepared.findings
    if prepared.rejected:
        result.status = "rejected"
        return
    result.evidence = prepared.evidence
    restored, template, raw = prepared.restored, prepared.template, prepared.raw

    order = assignment.autograded_order
    cells = [
        (notebooks.grade_id(cell) or f"code cell {index + 1}", notebooks.cell_text(cell))
        for index, cell in enumerate(notebooks.cells_to_run(restored))
    ]
    if isinstance(submission, (str, Path)):
        hide = (*hide, str(Path(submission).resolve().parent))
    began = time.perf_counter()
    sandbox = Sandbox(raw, Path(result.source_file).name or "submission.ipynb", limits=limits, hide=hide)
    try:
        try:
            sandbox.start()
        except SandboxError as error:
            _reject(result, question_list, Finding("kernel-start-failed", str(error), "error"))
            return
        sandbox.execute_cells(cells)
        executed = time.perf_counter()
        handle = KernelHandle(sandbox, assignment, seed=seed)
        handle.owners = answered_by(template)
        tests, problems = run_suite(assignment, handle, order, skip=skip_tests, log=test_log)
        finished = time.perf_counter()
    finally:
        sandbox.close()
    result.findings += sandbox.findings + score_like_output(sandbox.cell_outputs)
    result.findings += [problem.finding() for problem in problems]
    result.questions = score_questions(question_list, tests)
    apply_penalties(result)
    result.timings.update(
        {
            "kernel_start_s": round(sandbox.start_seconds, 2),
            "execute_s": round(executed - began, 2),
            "tests_s": round(finished - executed, 2),
            "kernel_peak_mb": round(sandbox.peak_rss / 2**20),
            "restarts": sandbox.restarts,
            # 1 when the (last) kernel was forked from the batch's warm zygote
            "warm_kernel": int(bool(sandbox.status.get("warm"))),
            # CPU seconds the student's code used in its kernels: what the budgets count
            "kernel_cpu_s": round(sandbox.cpu_used(), 2),
            # executions stopped by their CPU budget, and by the wall-clock ceiling
            "cpu_timeouts": sandbox.timeouts["cpu"],
            "wall_timeouts": sandbox.timeouts["wall"],
            # 1 when the (last) kernel ran in a cgroup of its own (cgroups.py)
            "kernel_cgroup": int(bool(sandbox.status.get("cgroup"))),
        }
    )
