"""Mutants graded from one forked run of the reference against each mutated notebook run from its first cell.

    python benchmarks/mutant_forking.py [ASSIGNMENT ...] [--every K]

For each assignment, every K-th mutant (all of them by default) is graded both ways in one process, after
one mutant has been graded so that neither way pays the process's first imports: ``forking.grade_mutants``
(which also runs and grades the reference once first) and ``mutant_checks.grade_mutant`` one at a time. Prints the
wall seconds of each way and whether any record differs (scores or findings). Say the machine's load
(``uptime``) beside the figures.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assignments.course import default  # noqa: E402
from assignments.grading.selftest import forking, mutant_checks, mutation  # noqa: E402


def comparable(result):
    return result.scores(), sorted((f.code, f.message) for f in result.findings)


def compare(name: str, every: int) -> str:
    assignment = default().assignment(name)
    chosen = mutation.mutants(assignment)[::every]
    mutant_checks.grade_mutant(assignment, chosen[0])  # the process's first imports, paid before either timing
    began = time.perf_counter()
    forked = dict(forking.grade_mutants(assignment, chosen))
    forked_s = time.perf_counter() - began
    began = time.perf_counter()
    plain = {mutant: mutant_checks.grade_mutant(assignment, mutant) for mutant in chosen}
    plain_s = time.perf_counter() - began
    differ = [
        m.name for m in chosen if isinstance(forked[m], Exception) or comparable(forked[m]) != comparable(plain[m])
    ]
    return (
        f"{name:14s} {len(chosen):3d} mutants  forked {forked_s:6.1f} s  one at a time {plain_s:6.1f} s  "
        f"records that differ: {', '.join(differ) or 'none'}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*")
    parser.add_argument("--every", type=int, default=1)
    options = parser.parse_args()
    for assignment in options.assignments or default().present():
        print(compare(assignment, options.every), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
