"""Grade one upload the way Gradescope's run_autograder does, and keep the grader's full record.

    python benchmarks/one_submission.py ASSIGNMENT GRADESCOPE_ROOT RECORD_JSON [--no-namespaces]

GRADESCOPE_ROOT holds ``submission/`` and ``submission_metadata.json``; ``results/results.json`` is written
there as on Gradescope, and the grader's record (with its timings) to RECORD_JSON. One process grades
one submission with the standalone door, as in a Gradescope container; ``grade_class.py`` runs this in a
cgroup to measure it. ``--no-namespaces`` makes the sandbox use its fallback, as Docker refuses it
namespaces on Gradescope.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from pathlib import Path

STARTED = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from assignments.course import resolve  # noqa: E402
from assignments.platforms.gradescope import runner as gradescope_runner  # noqa: E402


def main() -> int:
    assignment, root, record = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    hw = resolve(assignment)  # this benchmark's edge: the name on its command line
    if "--no-namespaces" in sys.argv[4:]:
        from assignments.grading.sandbox.session import NO_NAMESPACES_ENV

        os.environ[NO_NAMESPACES_ENV] = "1"

    def grade(_, notebook, student):
        from assignments.grading.doors.standalone import grade_submission

        began = time.perf_counter()
        result = grade_submission(hw, notebook, student)
        # everything before grading began: Python, the package, torch, pytest, nbformat
        result.timings["grader_start_s"] = round(began - STARTED, 2)
        # CPU seconds of this process, imports included (the kernel's are the cgroup's total less these)
        own = resource.getrusage(resource.RUSAGE_SELF)
        result.timings["grader_cpu_s"] = round(own.ru_utime + own.ru_stime, 2)
        record.write_text(result.to_json())
        return result

    gradescope_runner.run(
        hw,
        root / "submission",
        root / "results" / "results.json",
        root / "submission_metadata.json",
        grade=grade,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
