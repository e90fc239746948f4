"""Grading a whole class through the standalone door, K submissions at a time.

Each submission is graded in a fresh grader process of its own (spawned: nothing inherited from the CLI
or from another student), which starts the sandboxed kernel and runs the hidden suite. This process only
supervises: it holds every grader process to a ``GraderBudget`` (a wall deadline, resident memory, and
CPU time per hidden test) and kills one that breaks it. A hidden test is what usually breaks it (a
comparison the student's reply made endless in C code, or huge), so the grader process writes a line as
each test starts and ends; after a kill the test that was running scores 0 with a ``test-budget`` finding,
every finished test keeps its result, and the remaining tests run in a fresh grader process (the notebook
runs again in a new sandbox; the killing test is skipped there). One grader process's death concerns its
own student only.

A result is written to ``<out>/results/<student>.json`` the moment it is done, so an interrupted batch
loses nothing already graded.

Why one module of this length: the supervisor, its grader processes and their budgets share one
protocol (the job, the test log, the death record); split apart, each part would carry the others' formats.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

from assignments.course import Assignment
from assignments.results.model import (
    BUDGET_FINDING,
    Finding,
    SubmissionResult,
    TestResult,
    add_tests,
    apply_penalties,
    rejected,
)
from assignments.runs import store
from assignments.runs.folder import Run, as_run

GiB = 1024**3
POLL_S = 0.05  # how often the supervisor looks at its grader processes (a fast allocator gains ~0.5 GB)


@dataclass(frozen=True)
class Job:
    student: str
    path: str
    seed: int = 0
    hide: tuple = ()  # folders the student's kernel must not see (the class's submissions, the results)
    sha256: str = ""  # of the notebook's bytes, stamped on the record (runs/regrade.py: resuming a batch)


@dataclass(frozen=True)
class GraderBudget:
    """What one grader process may use (its student's kernel is bounded separately by limits.Limits)."""

    # The whole submission in one grader process: limits.Limits.total_wall_timeout (450 s, the wall-clock
    # ceiling beside the kernel's 300 CPU seconds) for the kernel's notebook and calls, plus starting
    # Python and torch, plus the grader's own share of the tests.
    wall_seconds: float = 750.0
    # Resident memory of the grader process itself (not its kernel): torch and the suite take ~0.5 GB.
    memory_bytes: int = 4 * GiB
    # A test still running this many CPU seconds after its own budget (suite.TEST_BUDGET_S or its
    # ``budget`` marker) ran out is stuck where the in-process timer cannot reach it (in C): kill.
    cpu_grace_seconds: float = 5.0
    # Grader processes one submission may use; after that the tests not yet run score 0.
    processes: int = 4


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def grade_one(assignment: Assignment, job: Job, skip_tests=(), test_log=None) -> SubmissionResult:
    """The default grader: runs in a grader process; never raises (problems become findings)."""
    from assignments.grading.doors.standalone import grade_submission

    return grade_submission(
        assignment, Path(job.path), job.student, seed=job.seed, hide=job.hide, skip_tests=skip_tests, test_log=test_log
    )


def _grader_main(
    grader,
    assignment: Assignment,
    job: Job,
    skip: list[str],
    folder: str,
    zygote: str = "",
    switches: dict | None = None,
) -> None:
    """Entry point of a grader process: grade, then write the record where the supervisor reads it."""
    import resource

    from assignments.grading.sandbox.warm_kernels import ZYGOTE_ENV

    for name, value in (switches or {}).items():  # as the batch saw them (_sandbox_switches)
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    tempfile.tempdir = str(Path(folder) / "tmp")  # sandbox scratch lands here: removed even after a kill
    if zygote:
        os.environ[ZYGOTE_ENV] = zygote  # this process's kernels are forked from the batch's zygote
    with open(Path(folder) / "tests.jsonl", "a", encoding="utf-8") as log:
        result = grader(assignment, job, skip_tests=tuple(skip), test_log=log)
    # Peak resident memory of this grader process (kB on Linux); the sandbox measures the kernel's own.
    own = resource.getrusage(resource.RUSAGE_SELF)
    result.timings["worker_peak_mb"] = round(own.ru_maxrss / 1024, 1)
    # CPU seconds of this process since its fork (a busy machine inflates wall time, not this)
    result.timings["grader_cpu_s"] = round(own.ru_utime + own.ru_stime, 2)
    done = Path(folder) / "result.json"
    done.with_suffix(".tmp").write_text(result.to_json())
    done.with_suffix(".tmp").replace(done)


def _crashed(assignment: Assignment, job: Job, why: str) -> SubmissionResult:
    return rejected(
        job.student,
        assignment,
        "standalone",
        Finding("grader-crash", f"the grader failed on this submission ({why}); it scored 0 and needs a look", "error"),
        job.path,
    )


def save(result: SubmissionResult, run: Run | Path) -> Path:
    """The run's ``results/<student>.json`` (the store's one save, which refuses a key that is no file name);
    ``run``: a ``Run``, or the folder of one."""
    return store.save_result(result, as_run(run).results)


def _resident_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of the process (all its threads), from /proc/<pid>/stat."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


# Imported once by the fork server, so that a fresh grader process per submission does not pay for them
# again. Only trusted grader code and libraries: no submission is ever read there, so a grader process
# forked from it holds nothing of another student. CPU seconds each saves per submission, measured on
# the 2-core machine: the grader itself (torch, pytest, nbformat) about 3; the kernel client the sandbox
# imports when it starts about 0.3; torch._dynamo, which torch imports at the first optimizer an oracle
# builds (every suite does), about 2; the BERT model the oracles of two suites build, about 1.5.
PRELOAD = [
    "assignments.grading.doors.standalone",
    "jupyter_client",
    "zmq",
    "torch._dynamo",
    "transformers.models.bert.modeling_bert",
]


def _sandbox_switches() -> dict:
    """The environment switches that choose how sandboxes are made (no namespaces, no cgroup), as they are
    now. Grader processes are forked from a fork server that keeps the environment of the moment it
    started (the first batch of this process), so each is handed these as its own batch sees them: a
    batch run in the forced fallback after one with namespaces is graded in the fallback."""
    from assignments.grading.sandbox.cgroups import NO_CGROUP_ENV
    from assignments.grading.sandbox.process import NO_NAMESPACES_ENV

    return {name: os.environ.get(name) for name in (NO_NAMESPACES_ENV, NO_CGROUP_ENV)}


def _sweep_cgroups() -> None:
    """A grader process killed for its budget could not remove its sandbox's cgroup; the next sandbox
    made beside it does, and so does the batch when it ends (cgroups.py)."""
    from assignments.grading.sandbox.cgroups import sweep_dead

    sweep_dead()


def _grader_context():
    """Grader processes are forked from a fork server: a clean interpreter started for the purpose (nothing
    inherited from the CLI) that has imported PRELOAD and started no threads. Each submission still gets a
    process of its own; only trusted grader modules are shared. Spawn where there is no fork server."""
    try:
        context = get_context("forkserver")
    except ValueError:
        return get_context("spawn")
    context.set_forkserver_preload(PRELOAD)
    return context


@dataclass
class _Submission:
    """One student's grading, across as many grader processes as it takes."""

    job: Job
    began: float = 0.0
    processes: int = 0
    crashes: int = 0  # grader deaths outside any test
    skip: list = field(default_factory=list)  # node ids already scored
    carried: list = field(default_factory=list)  # their TestResults
    findings: list = field(default_factory=list)  # budget findings from killed processes
    process: object = None
    folder: Path | None = None
    started: float = 0.0
    test: dict | None = None  # the running test's start record
    test_cpu: float = 0.0  # CPU time of the process when that test started
    log_offset: int = 0


def start_zygote():
    """The batch's warm-kernel zygote, when kernels can have namespaces; None otherwise (cold kernels).
    The fork server is started first, so that it and the zygote import their libraries side by side while
    the first grader processes read their submissions (their kernels wait for the zygote)."""
    from assignments.grading.sandbox.limits import Limits
    from assignments.grading.sandbox.process import kernel_env, namespaces_allowed
    from assignments.grading.sandbox.warm_kernels import Zygote

    limits = Limits()
    if not (limits.isolate and namespaces_allowed()):
        return None
    try:
        from multiprocessing import forkserver

        forkserver.ensure_running()
    except (ImportError, ValueError, OSError):
        pass
    return Zygote.spawn(lambda scratch: kernel_env(scratch, limits))


class _Supervisor:
    def __init__(self, assignment: Assignment, grader, budget: GraderBudget, work: Path, zygote: str = ""):
        self.assignment, self.grader, self.budget, self.work = assignment, grader, budget, work
        self.zygote = zygote
        self.context = _grader_context()
        self.switches = _sandbox_switches()

    def start(self, sub: _Submission) -> None:
        if not sub.processes:
            sub.began = time.monotonic()
        sub.processes += 1
        sub.folder = Path(tempfile.mkdtemp(prefix=f"{sub.processes}-", dir=self.work))
        (sub.folder / "tmp").mkdir()
        os.chmod(sub.folder, 0o711)  # an unprivileged kernel must reach its scratch below, never list it
        os.chmod(sub.folder / "tmp", 0o711)
        sub.test, sub.log_offset = None, 0
        sub.process = self.context.Process(
            target=_grader_main,
            args=(self.grader, self.assignment, sub.job, list(sub.skip), str(sub.folder), self.zygote, self.switches),
            name=f"grader-{sub.job.student}",
            daemon=True,
        )
        sub.process.start()
        sub.started = time.monotonic()

    def _follow_log(self, sub: _Submission) -> list[dict]:
        """New complete lines of the grader process's test log; tracks the running test."""
        try:
            with open(sub.folder / "tests.jsonl", "rb") as log:
                log.seek(sub.log_offset)
                data = log.read()
        except OSError:
            return []
        complete = data[: data.rfind(b"\n") + 1]
        sub.log_offset += len(complete)
        records = []
        for line in complete.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            records.append(record)
            if record.get("event") == "start":
                sub.test, sub.test_cpu = record, _cpu_seconds(sub.process.pid)
            elif record.get("event") == "end":
                sub.test = None
        return records

    def check(self, sub: _Submission) -> str | None:
        """Why the grader process must be stopped now, or None. Follows its test log as a side effect."""
        self._follow_log(sub)
        pid = sub.process.pid
        if time.monotonic() - sub.started > self.budget.wall_seconds:
            return f"grading this submission ran past its {self.budget.wall_seconds:g} s time budget"
        if _resident_bytes(pid) > self.budget.memory_bytes:
            return f"the grader went past its {self.budget.memory_bytes / 2**20:.0f} MB memory budget"
        if sub.test is not None:
            allowed = float(sub.test.get("budget", 0) or 0) + self.budget.cpu_grace_seconds
            if _cpu_seconds(pid) - sub.test_cpu > allowed:
                return f"the grader ran past this test's {allowed - self.budget.cpu_grace_seconds:g} s budget"
        return None

    def finish(self, sub: _Submission, killed_for: str | None) -> SubmissionResult | None:
        """The student's record once its grader process has ended, or None to resume in a fresh one."""
        process = sub.process
        process.join()
        try:
            done = sub.folder / "result.json"
            if killed_for is None and done.is_file():
                result = SubmissionResult.from_dict(json.loads(done.read_text()))
                return self._complete(sub, result)
            records = self._all_records(sub)
        finally:
            shutil.rmtree(sub.folder, ignore_errors=True)
        why = killed_for or _death(process.exitcode)
        ended = {r["id"]: r["result"] for r in records if r.get("event") == "end" and "result" in r}
        for node_id, data in ended.items():
            if node_id not in sub.skip:
                sub.skip.append(node_id)
                sub.carried.append(TestResult(**data))
        running = [r for r in records if r.get("event") == "start" and r.get("id") not in ended]
        if running:
            test = running[-1]
            message = f"the grader was stopped while checking your answer: {why}"
            sub.skip.append(test["id"])
            sub.carried.append(
                TestResult(
                    test.get("name", test["id"]),
                    test.get("question", ""),
                    0.0,
                    float(test.get("max_points", 0)),
                    "failed",
                    message,
                )
            )
            sub.findings.append(
                Finding(
                    BUDGET_FINDING,
                    f"a test of {test.get('question')} scored 0: {test.get('name')}: {message}",
                    "error",
                    test.get("question"),
                )
            )
        else:
            sub.crashes += 1
        if sub.crashes > 1 or sub.processes >= self.budget.processes:
            result = _crashed(
                self.assignment, sub.job, f"its grader process was stopped {sub.processes} time(s), last: {why}"
            )
            result.findings[:0] = sub.findings
            return result
        return None

    def _all_records(self, sub: _Submission) -> list[dict]:
        sub.log_offset = 0
        return self._follow_log(sub)

    def _complete(self, sub: _Submission, result: SubmissionResult) -> SubmissionResult:
        if sub.carried:
            add_tests(result, sub.carried)
            result.findings[:0] = sub.findings
            apply_penalties(result)  # add_tests scored the questions again
        result.timings["grader_processes"] = sub.processes
        result.timings["total_s"] = round(time.monotonic() - sub.began, 2)
        return result


def _death(exitcode) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"the grader process was killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            pass
    return f"the grader process ended without a result (exit code {exitcode})"


def _refuse_where_the_sandbox_cannot_run() -> None:
    """SandboxRefused, before any submission is graded, where the sandbox cannot run students' code
    correctly on this machine (every test would fail correct code): the message says what to change."""
    from assignments.grading.sandbox.preflight import refusal
    from assignments.grading.testkit.errors import SandboxRefused

    why = refusal()
    if why:
        raise SandboxRefused(why)


def _one_at_a_time_if_kernels_share_a_uid(workers: int) -> int:
    """1 (with a line saying why) where concurrent kernels would share a uid and see each other's files."""
    from assignments.grading.sandbox.process import shared_kernel_uid

    reason = shared_kernel_uid()
    if reason is None:
        return workers
    print(
        f"grading one submission at a time instead of {workers}: {reason}, and a kernel could read a "
        "classmate's files; give the machine namespaces or root to grade in parallel"
    )
    return 1


def grade_batch(
    assignment: Assignment,
    jobs: list[Job],
    out_dir: Run | Path,
    workers: int | None = None,
    progress: bool = True,
    budget: GraderBudget | None = None,
    grader=grade_one,
    findings: dict[str, list[Finding]] | None = None,
    warm_kernels: bool = True,
    grader_version: str = "",
) -> list[SubmissionResult]:
    """Grade every job (``workers`` at a time, with a progress bar and ETA); results come back in job order.
    Each record is written to the run ``out_dir``'s results/ once, as its grading ends, with ``findings[student]``
    (what the intake found about that student) added first, and stamped with the job's ``sha256`` and
    ``grader_version`` (what a later batch checks before it keeps the record: ``runs/regrade.py``).

    ``grader(assignment, job, skip_tests, test_log)`` grades one job in a grader process; it must be
    picklable (a module-level function or a partial of one). With ``warm_kernels`` the students' kernels
    are forked from one process that has imported their libraries (``warm_kernels.py``), where the
    machine gives kernels namespaces; each is still a fresh process in its own sandbox."""
    from tqdm.auto import tqdm

    _refuse_where_the_sandbox_cannot_run()
    workers = workers or default_workers()
    if workers > 1 and len(jobs) > 1:
        workers = _one_at_a_time_if_kernels_share_a_uid(workers)
    budget = budget or GraderBudget()
    results: dict[str, SubmissionResult] = {}
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="course-batch-"))
    os.chmod(work, 0o711)
    supervisor = _Supervisor(assignment, grader, budget, work)
    name = assignment.name
    # one submission gains nothing: the zygote would pay the imports its one kernel would have paid
    zygote = start_zygote() if warm_kernels and len(jobs) > 1 else None
    supervisor.zygote = zygote.socket if zygote else ""
    waiting, running = deque(_Submission(job) for job in jobs), []
    try:
        with tqdm(total=len(jobs), desc=f"grading {name}", unit="submission", disable=not progress) as bar:
            while waiting or running:
                while waiting and len(running) < workers:
                    supervisor.start(waiting[0])
                    running.append(waiting.popleft())
                time.sleep(POLL_S)
                for sub in list(running):
                    killed_for = supervisor.check(sub) if sub.process.is_alive() else None
                    if killed_for is not None:
                        sub.process.kill()
                    elif sub.process.is_alive():
                        continue
                    running.remove(sub)
                    result = supervisor.finish(sub, killed_for)
                    if result is None:
                        waiting.appendleft(sub)  # its remaining tests, in a fresh grader process
                        continue
                    result.findings += (findings or {}).get(sub.job.student, [])
                    result.submission_sha256, result.grader_version = sub.job.sha256, grader_version
                    results[sub.job.student] = result
                    save(result, out_dir)
                    bar.update(1)
    finally:
        for sub in running:  # interrupted: leave no grader process behind
            sub.process.kill()
            sub.process.join()
        if zygote is not None:
            zygote.close()
        shutil.rmtree(work, ignore_errors=True)
        _sweep_cgroups()
    if progress:
        print(
            f"graded {len(jobs)} submission(s) of {name} in {time.perf_counter() - started:.1f} s "
            f"with {workers} worker(s)"
        )
    return [results[job.student] for job in jobs]
