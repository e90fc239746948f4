"""``assignments/grading/door.py``: the path source notebooks' hidden-test regions (and every nbgrader
gradebook made from them) import ``hidden_tests`` from, kept after the code moved to the nbgrader door."""

import subprocess
import sys

from assignments.grading import door
from assignments.grading.doors import nbgrader
from assignments.grading.doors.nbgrader import hidden_region


def test_the_shim_gives_the_nbgrader_doors_own_hidden_tests():
    assert door.hidden_tests is hidden_region.hidden_tests is nbgrader.hidden_tests
    assert door.__all__ == ["hidden_tests"]


def test_the_line_a_hidden_test_region_runs_still_imports():
    line = "from assignments.grading.door import hidden_tests"
    assert line in hidden_region.__doc__  # the region as the nbgrader door documents it
    done = subprocess.run(
        [sys.executable, "-c", f"{line}; print(hidden_tests.__module__)"], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "assignments.grading.doors.nbgrader.hidden_region", done.stderr[-2000:]
