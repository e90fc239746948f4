"""Grading a whole class through the standalone door with K parallel workers.

Each worker process is trusted grader code: it starts one sandboxed kernel per submission and runs the
hidden suite against it. A result is written to ``<out>/results/<student>.json`` the moment it is done,
so an interrupted batch loses nothing already graded, and a failure of one submission (even of a worker)
becomes a diagnostic in that student's record while the batch goes on.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from .results import Finding, SubmissionResult


@dataclass(frozen=True)
class Job:
    student: str
    path: str
    seed: int = 0
    hide: tuple = ()   # folders the student's kernel must not see (the class's submissions, the results)


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def grade_one(assignment: str, job: Job) -> SubmissionResult:
    """Runs in a worker process; never raises (grade_submission reports problems as findings)."""
    import resource

    from .standalone import grade_submission

    result = grade_submission(assignment, Path(job.path), job.student, seed=job.seed, hide=job.hide)
    # Peak resident memory of this worker so far (kB on Linux); the sandbox measures the kernel's own.
    result.timings["worker_peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return result


def _crashed(assignment: str, job: Job, error: BaseException) -> SubmissionResult:
    return SubmissionResult(
        student=job.student, assignment=assignment, door="standalone", source_file=job.path, status="rejected",
        findings=[Finding("grader-crash", f"the grader failed on this submission ({type(error).__name__}: "
                          f"{error}); it scored 0 and needs a look", "error")])


def result_path(out_dir: Path, student: str) -> Path:
    return Path(out_dir) / "results" / f"{student}.json"


def save(result: SubmissionResult, out_dir: Path) -> Path:
    path = result_path(out_dir, result.student)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(result.to_json())
    tmp.replace(path)  # atomic: a reader never sees half a record
    return path


def _run_pool(assignment: str, jobs: list[Job], workers: int, out_dir: Path, bar, results: dict,
              last_try: bool) -> list[Job]:
    """Grade ``jobs`` in one pool; return the jobs lost to a dead worker (to try once more)."""
    lost = []
    context = get_context("spawn")  # a clean interpreter per worker: nothing inherited from the CLI
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=context) as pool:
        futures = {pool.submit(grade_one, assignment, job): job for job in jobs}
        for future in as_completed(futures):
            job = futures[future]
            try:
                result = future.result()
            except BrokenProcessPool as error:
                # A worker died (the student's kernel is handled inside the worker, so this is rare).
                if not last_try:
                    lost.append(job)
                    continue
                result = _crashed(assignment, job, error)
            except Exception as error:  # noqa: BLE001 - one submission must not stop the batch
                result = _crashed(assignment, job, error)
            results[job.student] = result
            save(result, out_dir)
            bar.update(1)
    return lost


def grade_batch(assignment: str, jobs: list[Job], out_dir: Path, workers: int | None = None,
                progress: bool = True) -> list[SubmissionResult]:
    """Grade every job (in parallel, with a progress bar and ETA); results come back in job order."""
    from tqdm.auto import tqdm

    workers = workers or default_workers()
    results: dict[str, SubmissionResult] = {}
    started = time.perf_counter()
    with tqdm(total=len(jobs), desc=f"grading {assignment}", unit="submission", disable=not progress) as bar:
        lost = _run_pool(assignment, jobs, workers, out_dir, bar, results, last_try=False) if jobs else []
        if lost:
            _run_pool(assignment, lost, workers, out_dir, bar, results, last_try=True)
    if progress:
        print(f"graded {len(jobs)} submission(s) of {assignment} in {time.perf_counter() - started:.1f} s "
              f"with {workers} worker(s)")
    return [results[job.student] for job in jobs]
