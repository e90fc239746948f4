"""Runs an assignment's hidden pytest suite against a student handle and returns per-test results.

The suite lives in ``autograder/<assignment>/test_*.py``. Each test carries
``@question("<test cell grade_id>")`` (sharing the cell's points, ``assignments.points``) and takes the
``student`` fixture (a handle). Tests run in
the order of their questions in the notebook, so a stand-in for an earlier question is never in the
student's namespace before that question's own tests have run.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import pytest

from assignments.course import resolve
from assignments.grading.testkit.errors import (
    ReplyRefused,
    SandboxError,
    StandInRefused,
    StudentCodeError,
    StudentTimeout,
    TestBudgetExceeded,
)
from assignments.grading.testkit.kernel_text import KernelTextBudget, active_budget, budgeted, describe_exception
from assignments.grading.testkit.timers import raising_after
from assignments.points import shares
from assignments.results.model import BUDGET_FINDING, Finding, TestResult

PYTEST_ARGS = [
    "-p",
    "no:cacheprovider",
    "-p",
    "no:terminal",  # the plugin reports; nothing of pytest's own output reaches students
    "-p",
    "no:warnings",  # warnings never turn into failures or output
    "-p",
    "no:randomly",
    # These two only turn exceptions nobody can catch (in __del__, in a thread) into warnings, which
    # no:warnings drops anyway; the first also runs gc.collect() at the end of every session, which in a
    # process holding torch and transformers made each grading about twice as slow (benchmarks/README.md).
    "-p",
    "no:unraisableexception",
    "-p",
    "no:threadexception",
    # pytest's faulthandler plugin switches the process's faulthandler on and off and cancels any traceback
    # timer: in a grader that runs under a timer (a test run's hang backstop) or in a child forked from one
    # (the self-test's mutants), cancelling a timer whose watchdog thread the fork left behind blocks forever.
    "-p",
    "no:faulthandler",
    "--assert=plain",  # a bare assert shows its message only, never the test's expressions
    "--import-mode=importlib",
    "--capture=sys",
    "-o",
    "python_files=test_*.py",
    "-o",
    "addopts=",
]


# Grader CPU seconds one hidden test may use on its own side of the boundary (decoding replies, building
# oracles, comparing). Measured as CPU time (ITIMER_PROF), not wall time: a test that waits for the kernel
# uses none, and the kernel's time has its own limits (limits.Limits); LocalHandle's snippet alarm owns
# ITIMER_REAL, so the two timers never cancel each other. Raise it for one test with
# ``@pytest.mark.budget(seconds)``. Work stuck in C never returns to Python to see the signal: the batch's
# per-submission deadline and memory budget (batch.GraderBudget) end that one.
TEST_BUDGET_S = 60.0


def budget_message(seconds: float) -> str:
    return f"the grader ran past this test's {seconds:g} s budget checking your answer"


def failure_message(error: BaseException | None) -> str:
    """What the student reads when a test fails: never a traceback or the test's source."""
    if error is None:
        return ""
    if isinstance(error, (StudentTimeout, TestBudgetExceeded)):  # grader-written text
        return str(error)
    if isinstance(error, StudentCodeError):
        return f"your code raised {error}"
    if isinstance(error, SandboxError):
        return f"the grader could not run your code: {error}"
    if isinstance(error, AssertionError):
        # Keep the author's message only: if assertion rewriting is active (pytest inside pytest), it
        # appends the test's own expression after "\nassert", which students must not see.
        text = str(error).split("\nassert ", 1)[0].strip()
        return text or "a hidden check failed"
    return f"the check could not run ({describe_exception(error)})"


@dataclass(frozen=True)
class SuiteProblem:
    """Something that went wrong beside the tests' own outcomes.

    ``suite``: the hidden suite itself (a test without a question, a collection error): the grader's
    fault, never the student's. ``reply-refused``: the kernel's reply to a test broke a limit, the
    student's doing. ``over-budget``: checking an answer cost the grader more than the test's budget."""

    kind: Literal["suite", "reply-refused", "over-budget"]
    message: str
    question: str | None = None

    def __str__(self) -> str:
        return self.message if self.kind == "suite" else f"{self.kind} {self.question}: {self.message}"

    def finding(self) -> Finding:
        """The finding the standalone door records for it."""
        if self.kind == "suite":
            return Finding("suite-problem", self.message, "error")
        code = "reply-refused" if self.kind == "reply-refused" else BUDGET_FINDING
        return Finding(code, f"a test of {self.question} scored 0: {self.message}", "error", self.question)


class GradingPlugin:
    """Selects and orders the tests, provides the ``student`` fixture, records every outcome."""

    def __init__(
        self,
        handle,
        question_order: list[str],
        selected: list[str] | None = None,
        skip=(),
        log=None,
        cell_points: dict[str, float] | None = None,
        kernel_text: KernelTextBudget | None = None,
    ):
        self.handle = handle
        self.cell_points = cell_points or {}  # grade_id -> the test cell's points, which the tests share
        self.points: dict[str, float] = {}  # node id -> what the test is worth, set at collection
        self.skip = set(skip)  # node ids already scored by an earlier grader process (batch restarts)
        self.log = log  # open text file: one JSON line when a test starts and when it ends
        self.over_budget: list[tuple[str, str]] = []  # (question, message)
        self.order = {grade_id: i for i, grade_id in enumerate(question_order)}
        self.selected = set(selected) if selected else None
        self.results: list[TestResult] = []
        self.problems: list[SuiteProblem] = []
        self.refused: list[tuple[str, str]] = []  # (question, why): replies that broke a limit
        self._started: dict[str, float] = {}
        self.kernel_text = kernel_text  # the submission's budget: a test that passes gives back what it drew
        self._kernel_text_left = 0

    @pytest.fixture
    def student(self):
        return self.handle

    @staticmethod
    def declared(item) -> tuple[str | None, float | None]:
        """(grade_id, the test's own points or None) from its ``@question`` marker."""
        mark = item.get_closest_marker("question")
        if mark is None or not mark.args:
            return None, None
        points = mark.kwargs.get("points")
        return mark.args[0], None if points is None else float(points)

    def marker(self, item) -> tuple[str | None, float]:
        """(grade_id, what the test is worth): the shares are worked out over every test of the question
        at collection, before ``selected`` and ``skip`` narrow the run, so a test is worth the same in a
        one-question run (the nbgrader cell) as in a whole one (the standalone door)."""
        return self.declared(item)[0], self.points.get(item.nodeid, 0.0)

    def pytest_configure(self, config):
        config.addinivalue_line(
            "markers", "question(grade_id, points=None): the question a hidden test scores, and its weight"
        )
        config.addinivalue_line(
            "markers", f"budget(seconds): grader CPU seconds for this test (default {TEST_BUDGET_S:g})"
        )

    def pytest_collection_modifyitems(self, session, config, items):
        by_question: dict[str, list] = {}
        for item in items:
            grade_id, _ = self.declared(item)
            by_question.setdefault(grade_id, []).append(item)
        for grade_id, tests in by_question.items():
            worth = shares(self.cell_points.get(grade_id, 0.0), [self.declared(item)[1] for item in tests])
            self.points.update({item.nodeid: points for item, points in zip(tests, worth)})
        keep = []
        for item in items:
            grade_id, _ = self.marker(item)
            if grade_id is None:
                self.problems.append(SuiteProblem("suite", f"{item.nodeid} has no @question marker"))
                continue
            if grade_id not in self.order:
                self.problems.append(
                    SuiteProblem("suite", f"{item.nodeid} names question {grade_id!r}, not in the notebook")
                )
                continue
            if (self.selected is None or grade_id in self.selected) and item.nodeid not in self.skip:
                keep.append(item)
        keep.sort(key=lambda item: self.order[self.marker(item)[0]])  # stable: file order within a question
        items[:] = keep

    def pytest_collectreport(self, report):
        if report.failed:
            self.problems.append(
                SuiteProblem("suite", f"could not collect {report.nodeid}: {report.longreprtext[-500:]}")
            )

    def pytest_runtest_logstart(self, nodeid, location):
        self._started[nodeid] = time.perf_counter()

    def _write(self, record: dict) -> None:
        """Flushed at once: if this process is killed, the supervisor still knows which test it was in."""
        if self.log is not None:
            self.log.write(json.dumps(record) + "\n")
            self.log.flush()

    @staticmethod
    def budget(item) -> float:
        mark = item.get_closest_marker("budget")
        return float(mark.args[0]) if mark is not None and mark.args else TEST_BUDGET_S

    def pytest_runtest_setup(self, item):
        """Tell the handle which question is being scored: it refuses that question's stand-ins."""
        self.handle.question, points = self.marker(item)
        self.handle.order = self.order
        self._kernel_text_left = self.kernel_text.left if self.kernel_text is not None else 0
        self._write(
            {
                "event": "start",
                "id": item.nodeid,
                "name": item.name,
                "question": self.handle.question,
                "max_points": points,
                "budget": self.budget(item),
            }
        )

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        with _cpu_budget(self.budget(item)):
            yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        grade_id, points = self.marker(item)
        failed_setup = report.when == "setup" and not report.passed
        if report.when != "call" and not failed_setup:
            return
        error = call.excinfo.value if call.excinfo is not None else None
        if isinstance(error, StandInRefused):
            self.problems.append(SuiteProblem("suite", f"{item.nodeid}: {error}"))
        if isinstance(error, ReplyRefused):
            self.refused.append((grade_id, str(error)))
        if isinstance(error, TestBudgetExceeded):
            self.over_budget.append((grade_id, f"{item.name}: {error}"))
        if report.passed:
            state, earned = "passed", points
            if self.kernel_text is not None:
                self.kernel_text.give_back(self._kernel_text_left)
        else:
            students = (AssertionError, StudentCodeError, StudentTimeout, TestBudgetExceeded)
            state = "failed" if isinstance(error, students) else "error"
            earned = 0.0
        seconds = time.perf_counter() - self._started.get(item.nodeid, time.perf_counter())
        result = TestResult(item.name, grade_id, earned, points, state, failure_message(error), round(seconds, 3))
        self.results.append(result)
        self._write({"event": "end", "id": item.nodeid, "result": asdict(result)})


def _cpu_budget(seconds: float):
    """Raise TestBudgetExceeded in the test once this process has used ``seconds`` more CPU time."""
    return raising_after(seconds, "cpu", lambda: TestBudgetExceeded(budget_message(seconds)))


@contextlib.contextmanager
def no_plugin_autoload():
    """Only pytest's own plugins and ours run a hidden suite, not whatever pytest plugins the grading
    machine has installed: a score must not depend on them (pytest-xdist, anyio, ... add nothing to a
    suite), and loading them cost each grading 0.6 s and 9 MB. The environment variable, not pytest
    8.4's --disable-plugin-autoload, because pyproject.toml allows pytest 8.0."""
    saved = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = saved


@contextlib.contextmanager
def single_threaded_torch():
    """Tiny graded models gain nothing from intra-op threads, and with parallel graders (or a busy
    machine) the threads fight over cores: a 45-step training test went from 0.4 s to 14 s that way.
    One thread also keeps float reductions in the same order in every door."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


@contextlib.contextmanager
def cpu_only_torch():
    """No accelerator for the hidden tests' own computations either, as ``GRADING_ENV`` gives none to the kernel.

    An oracle that follows the notebook's choice of device (the stand-ins imported as references compute
    ``DEVICE`` from ``torch.cuda.is_available()``) would put its tensors on the grading host's GPU beside the
    student's, which come back from the kernel on the CPU, and the check could not run for anyone: on an H200
    host the transformers reference lost train_eval_loops' 2 points so (benchmarks/README.md, gpu_grading).
    The grader's torch answers "none" for the duration, however CUDA was set up in this process before."""
    import torch

    saved = torch.cuda.is_available, torch.backends.mps.is_available
    torch.cuda.is_available = torch.backends.mps.is_available = lambda: False
    try:
        yield
    finally:
        torch.cuda.is_available, torch.backends.mps.is_available = saved


def forget_other_courses_suites(root: Path) -> None:
    """Drop the cached modules that another course folder's ``autograder/`` made.

    Suites, their helpers and their test files are imported under names such as ``autograder.toy.helpers``
    or (pytest's importlib mode, in a suite folder that is not a package) ``test_toy``, and a name already in
    ``sys.modules`` is reused, not imported again: after one course's grading, another course's suite with
    the same names in the same process (a test's toy course, a job's copy of the repository) would run the
    first one's tests."""
    here = root.resolve()
    for name, module in list(sys.modules.items()):
        try:  # some modules answer oddly (torch's _classes has a __path__ that is not a list)
            places = [getattr(module, "__file__", None), *list(getattr(module, "__path__", None) or [])]
        except Exception:  # noqa: BLE001 - such a module is no suite's
            continue
        places = [Path(place).resolve() for place in places if isinstance(place, str) and "autograder" in place]
        in_a_suite = [place for place in places if "autograder" in place.parts]
        if in_a_suite and not any(place.is_relative_to(here) for place in in_a_suite):
            del sys.modules[name]


def run_suite(
    assignment,
    handle,
    question_order: list[str],
    selected: list[str] | None = None,
    skip=(),
    log=None,
    kernel_text: KernelTextBudget | None = None,
) -> tuple[list[TestResult], list[SuiteProblem]]:
    """Run ``assignment``'s hidden tests (its ``suite_dir``; an Assignment or a name in this course);
    return (results, problems).

    ``skip``: node ids not to run; ``log``: an open text file that gets a JSON line as each test starts
    and ends (the batch's supervisor reads it when it had to kill this process). ``kernel_text``: the
    submission's kernel-text budget, which all the tests' messages draw from; by default the one a door
    made active for the submission, else a fresh one (one run = one submission)."""
    kernel_text = kernel_text or active_budget() or KernelTextBudget()
    try:
        cells = {q.grade_id: q.points for q in resolve(assignment).questions}
    except FileNotFoundError:  # a suite without a notebook (engine tests): only explicit points count
        cells = {}
    plugin = GradingPlugin(handle, question_order, selected, skip, log, cells, kernel_text)
    root = str(resolve(assignment).course.root)  # the suite's course (the repository, or a job's copy of it)
    forget_other_courses_suites(Path(root))
    if root in sys.path:  # suites import their helpers as autograder.<assignment>.<module>: this course's first
        sys.path.remove(root)
    sys.path.insert(0, root)
    sink = io.StringIO()
    with (
        warnings.catch_warnings(),
        contextlib.redirect_stdout(sink),
        contextlib.redirect_stderr(sink),
        single_threaded_torch(),
        cpu_only_torch(),
        no_plugin_autoload(),
        budgeted(kernel_text),
    ):
        warnings.simplefilter("ignore")
        code = pytest.main([*PYTEST_ARGS, str(resolve(assignment).suite_dir)], plugins=[plugin])
    if code not in (0, 1) and not plugin.results:
        plugin.problems.append(SuiteProblem("suite", f"pytest exited with code {int(code)}: {sink.getvalue()[-800:]}"))
    problems = (
        plugin.problems
        + [SuiteProblem("reply-refused", why, grade_id) for grade_id, why in plugin.refused]
        + [SuiteProblem("over-budget", why, grade_id) for grade_id, why in plugin.over_budget]
    )
    return plugin.results, problems
