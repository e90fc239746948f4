"""What pytest's exception-hook plugins cost a hidden suite: one assignment's reference graded in-process,
alternately with the suite's own pytest arguments and with those arguments less the two ``-p no:``
entries for ``unraisableexception`` and ``threadexception``.

    python benchmarks/suite_plugins.py [ASSIGNMENT ...] [--rounds N]

Prints the wall seconds of each grading in both settings and their medians. Both settings must give the
reference full marks (checked), so the figure is the plugins' cost alone. Run on a quiet machine and
say its load (``uptime``) beside the figures: the costs scale with it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assignments.course import default  # noqa: E402
from assignments.grading.doors.inprocess import execute_cells, grade_namespace  # noqa: E402
from assignments.grading.selftest import reference  # noqa: E402
from assignments.grading.testkit import suite  # noqa: E402

PLUGINS = ("no:unraisableexception", "no:threadexception")


def without_plugin_switches(args: list[str]) -> list[str]:
    """The suite's arguments with each ``-p no:<plugin>`` pair for PLUGINS taken out."""
    out, skip = [], False
    for here, after in zip(args, args[1:] + [""]):
        if skip:
            skip = False
            continue
        if here == "-p" and after in PLUGINS:
            skip = True
            continue
        out.append(here)
    return out


def timings(name: str, rounds: int) -> dict[str, list[float]]:
    assignment = default().assignment(name)
    namespace, findings = execute_cells(reference.reference_notebook(assignment))
    grade_namespace(assignment, namespace, findings)  # the first grading imports the suite's modules
    settings = {"suite's arguments": list(suite.PYTEST_ARGS), "plugins on": without_plugin_switches(suite.PYTEST_ARGS)}
    seconds: dict[str, list[float]] = {label: [] for label in settings}
    original = list(suite.PYTEST_ARGS)
    try:
        for _ in range(rounds):
            for label, args in settings.items():
                suite.PYTEST_ARGS[:] = args
                began = time.perf_counter()
                result = grade_namespace(assignment, namespace, findings)
                seconds[label].append(round(time.perf_counter() - began, 2))
                problems = reference.full_marks_problems(result, f"{name} ({label})")
                if problems:
                    raise SystemExit("\n".join(problems))
    finally:
        suite.PYTEST_ARGS[:] = original
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*")
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    for assignment in options.assignments or default().present():
        for label, values in timings(assignment, options.rounds).items():
            print(f"{assignment:14s} {label:18s} median {statistics.median(values):5.2f} s   each: {values}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
