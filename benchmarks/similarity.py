"""Benchmark ``course similarity`` on a synthetic class: seconds per phase for a class of 300.

    .venv/bin/python benchmarks/similarity.py --assignment transformers --students 300 --workers 2

The class, packed as a Canvas bulk-download zip: the reference (the release filled with the solution),
one student per mutant (one known mistake each), and renamed copies of both (every local variable
renamed and the code re-printed from its syntax tree, as someone hiding a copy would), cycled to the
requested size. Every notebook is a near copy of every other, so every pair shares code: the pairwise
phase does its most work. Bar from the issue: a class of 300 in under a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assignments import notebooks  # noqa: E402
from assignments.course import Assignment, default  # noqa: E402
from assignments.demo import students as demo_class  # noqa: E402
from assignments.grading.selftest import mutation  # noqa: E402
from assignments.similarity import compare as similarity  # noqa: E402
from assignments.similarity import report as similarity_report  # noqa: E402
from tests.fixtures.similarity import renamed  # noqa: E402


def synthetic_class(assignment: Assignment, size: int) -> dict[str, object]:
    """``{student: notebook}``: reference, mutants, and renamed copies of them, cycled to ``size``."""
    variants = [("reference", {})] + [(m.name, {m.replaces: m.code}) for m in mutation.mutants(assignment)]
    answers = [gid for gid in similarity.context(assignment).questions]
    students = {}
    for index in range(size):
        name, replacements = variants[index % len(variants)]
        nb = demo_class.filled_release(assignment, replacements)
        if (index // len(variants)) % 2:  # every other round: the same notebooks, disguised
            for cell in nb.cells:
                if notebooks.grade_id(cell) in answers:
                    cell.source = renamed(cell.source, prefix=f"v{index}_")
            name = f"{name}-renamed"
        students[f"student{index:03d}-{name}"] = nb
    return students


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assignment", default=default().present()[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--workers", type=int, default=None, help="default: CPU cores")
    parser.add_argument("--top", type=int, default=similarity_report.TOP)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="similarity-benchmark-") as work:
        download = Path(work) / "canvas_download.zip"
        hw = default().assignment(args.assignment)
        demo_class.write_canvas_zip(hw, synthetic_class(hw, args.students), download)
        out = Path(work) / "similarity"
        figures = {
            "assignment": args.assignment,
            "students": args.students,
            "workers": args.workers or os.cpu_count(),
            "cpu_count": os.cpu_count(),
            "zip_mb": round(download.stat().st_size / 2**20, 1),
            "load_before": round(os.getloadavg()[0], 2),
        }
        started = time.perf_counter()
        cpu = time.process_time()
        comparison = similarity_report.similarity_report(hw, download, out, args.top, args.workers)
        figures["total_s"] = round(time.perf_counter() - started, 2)
        figures["parent_cpu_s"] = round(time.process_time() - cpu, 2)
        figures.update({phase: round(seconds, 2) for phase, seconds in comparison.timings.items()})
        figures["load_after"] = round(os.getloadavg()[0], 2)
        figures["pairs_sharing_code"] = len(comparison.pairs)
        figures["top_score"] = round(comparison.pairs[0].score, 3) if comparison.pairs else 0.0
        figures["html_kb"] = round((out / "similarity.html").stat().st_size / 1024)
    for key, value in figures.items():
        print(f"{key}: {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
