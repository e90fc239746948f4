"""Benchmark the standalone grader on a synthetic class: seconds per submission, peak memory, speed-up.

    .venv/bin/python benchmarks/grade_class.py --assignment transfer_lm --students 20 --workers 1 2

The class is the reference plus mutants (one known mistake each), cycled to the requested size. Each
worker count grades the whole class from scratch. Bars from the issue: one submission <= 60 s and
<= 2 GB; 2 workers >= 1.8x faster than 1 on a class of 20 (on a 2-core machine).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assignments import demo_class, notebooks  # noqa: E402
from assignments.grading import batch, selftest  # noqa: E402


def synthetic_class(assignment: str, size: int, folder: Path) -> list[batch.Job]:
    variants = [("reference", {})] + [(m.name, {m.replaces: m.code}) for m in selftest.mutants(assignment)]
    jobs = []
    for i in range(size):
        name, replacements = variants[i % len(variants)]
        nb = demo_class.filled_release(assignment, replacements)
        path = folder / f"student{i:03d}-{name}.ipynb"
        path.write_text(__import__("nbformat").writes(nb))
        jobs.append(batch.Job(f"student{i:03d}", str(path)))
    return jobs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assignment", default=notebooks.assignment_names()[-1])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="grading-benchmark-"))
    try:
        jobs = synthetic_class(args.assignment, args.students, work)
        seconds = {}
        for workers in args.workers:
            start = time.perf_counter()
            results = batch.grade_batch(args.assignment, jobs, work / f"out-{workers}", workers, progress=True)
            seconds[workers] = time.perf_counter() - start
            per = [r.timings.get("total_s", 0.0) for r in results]
            worker_mb = max(r.timings.get("worker_peak_mb", 0.0) for r in results)
            kernel_mb = max(r.timings.get("kernel_peak_mb", 0.0) for r in results)
            print(f"{args.assignment}: {len(jobs)} submissions, {workers} worker(s): {seconds[workers]:.1f} s wall, "
                  f"{seconds[workers] / len(jobs):.2f} s per submission (throughput); one submission "
                  f"{min(per):.1f}-{max(per):.1f} s; peak memory: worker {worker_mb:.0f} MB, "
                  f"student kernel {kernel_mb:.0f} MB")
        base = args.workers[0]
        for workers in args.workers[1:]:
            print(f"speed-up of {workers} workers over {base}: {seconds[base] / seconds[workers]:.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
