"""The sizing rule: how long a class takes to grade and how much memory the workers hold, from the measured
figures of ``benchmarks/grade_class.py`` (``benchmarks/results/grade_class_sizes.json``; how and where they
were measured: benchmarks/README.md).

Grading is CPU-bound and every submission is graded in a process of its own, so a class of C students on W
workers (each on a core of its own) takes about C x (CPU seconds per submission) / W, and holds about
W x (memory per submission being graded). The figures are the largest measured class's: the fixed costs
(the fork server, the zygote's imports) spread over it, as they do over a real class. ``course grade`` prints
the estimate at the start of a batch; ``course cluster`` sizes its requests from it; the docs quote it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "grade_class_sizes.json"
# What a supervising `course grade` process holds beside its workers (it imports no torch: about 150 MB
# measured as the class's PSS less its workers'), rounded up, and the margin a scheduler's request keeps
# over the measured peak: a class is not the demo class, and an out-of-memory kill costs a rerun.
SUPERVISOR_MB = 512
MEMORY_MARGIN = 1.5
TIME_MARGIN = 3.0  # a shared cluster's core is slower than an idle benchmark's, and a limit that is hit kills


@dataclass(frozen=True)
class Figures:
    """The sizing rule's inputs: per submission, measured on ``machine``."""

    cpu_s_per_submission: float  # CPU seconds per submission, everything included
    mb_per_worker: int  # summed PSS at the peak over the workers (memory per submission being graded)
    students: int  # the class they were measured on
    assignment: str
    machine: str


def figures(path: Path = RESULTS) -> Figures | None:
    """The largest measured class's figures (the worst of its runs), or None where the file is absent (a
    course installed without this repository's benchmarks/, as in the grader image)."""
    try:
        rows = [row for row in json.loads(path.read_text(encoding="utf-8")) if row.get("cpu_per_submission_s")]
    except (OSError, ValueError):
        return None
    if not rows:
        return None
    largest = max(row["students"] for row in rows)
    at_largest = [row for row in rows if row["students"] == largest]
    # Memory per worker where several workers ran: their kernels are forks of one zygote and share its pages,
    # so one worker alone carries the zygote and the fork server whole (and reads higher per worker).
    shared = [row for row in rows if row.get("workers", 1) > 1] or rows
    return Figures(
        cpu_s_per_submission=max(row["cpu_per_submission_s"] for row in at_largest),
        mb_per_worker=max(row["pss_per_worker_mb"] for row in shared),
        students=largest,
        assignment=at_largest[0]["assignment"],
        machine=at_largest[0].get("machine", "the benchmark's machine"),
    )


@dataclass(frozen=True)
class Estimate:
    students: int
    workers: int
    minutes: float  # wall time on an idle machine with a core per worker
    memory_gb: float  # the workers and the supervising process

    def line(self, source: Figures) -> str:
        return (
            f"sizing: {self.students} student(s) on {self.workers} worker(s) -> about {self.minutes:.0f} min "
            f"and {self.memory_gb:.1f} GB ({source.cpu_s_per_submission:g} s of CPU and {source.mb_per_worker} MB "
            f"per submission being graded, measured on a class of {source.students} of {source.assignment}: "
            "benchmarks/README.md)"
        )


def estimate(students: int, workers: int, source: Figures) -> Estimate:
    workers = max(1, min(workers, students)) if students else max(1, workers)
    return Estimate(
        students=students,
        workers=workers,
        minutes=students * source.cpu_s_per_submission / workers / 60,
        memory_gb=(workers * source.mb_per_worker + SUPERVISOR_MB) / 1000,
    )


def batch_line(students: int, workers: int) -> str:
    """The one line `course grade` prints before a batch."""
    source = figures()
    if source is None:
        return f"sizing: {students} student(s) on {workers} worker(s) (no measured figures here: {RESULTS.name})"
    return estimate(students, workers, source).line(source)


@dataclass(frozen=True)
class Request:
    """What one shard asks a scheduler for: cores, memory and a time limit, from the sizing rule with margins."""

    cpus: int
    memory_mb: int
    minutes: int


def request(shard_students: int, workers: int, source: Figures | None = None) -> Request:
    source = source or figures()
    if source is None:  # no measured figures: the first reading (3-4 s and 0.6-0.8 GB a submission)
        source = Figures(4.0, 800, 0, "none", "none")
    memory = (workers * source.mb_per_worker + SUPERVISOR_MB) * MEMORY_MARGIN
    minutes = shard_students * source.cpu_s_per_submission / workers / 60 * TIME_MARGIN
    return Request(cpus=workers, memory_mb=int(math.ceil(memory / 256) * 256), minutes=int(math.ceil(minutes)) + 10)
