"""Plain helpers that several test files share (pytest fixtures are in conftest.py).

The isolation switch: a test that checks the sandbox's isolation (namespaces, the no-namespace fallback
as root, cgroups) skips with ``isolation_unavailable(reason)`` where the machine cannot give it; with
``COURSE_REQUIRE_ISOLATION=1`` (CI sets it in .ci/run) the same call fails the test instead, so a machine
that must enforce isolation never passes by skipping. Mark a whole module or test with
``needs_isolation(missing)``, ``missing`` being None where the machine gives what the tests need.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest

from assignments.points import declared_points, shares

REQUIRE_ISOLATION = "COURSE_REQUIRE_ISOLATION"
# The same rule for programs from the OS packages that CI installs (LibreOffice, ``.ci/install-spreadsheet``):
# a test that needs one skips without it, and fails instead with COURSE_REQUIRE_TOOLS=1 (.ci/run sets it).
REQUIRE_TOOLS = "COURSE_REQUIRE_TOOLS"

# The assignment quickest to execute: where a code path is the same for every assignment (the nbgrader
# door, repair, batch grading, formgrader), it stands for all three.
QUICKEST = "transfer_lm"


def isolation_required() -> bool:
    return os.environ.get(REQUIRE_ISOLATION, "") not in ("", "0")


def isolation_unavailable(reason: str):
    """Skip: this machine cannot give the isolation the test checks. Fail where it must (the switch)."""
    if isolation_required():
        pytest.fail(
            f"{REQUIRE_ISOLATION}=1, but this machine gives no isolation for this test: {reason}", pytrace=False
        )
    pytest.skip(f"isolation unavailable: {reason} (set {REQUIRE_ISOLATION}=1 to fail instead)")


def tool_unavailable(reason: str):
    """Skip: an OS program the test needs is not installed. Fail where CI promised it (the switch)."""
    if os.environ.get(REQUIRE_TOOLS, "") not in ("", "0"):
        pytest.fail(f"{REQUIRE_TOOLS}=1, but {reason}", pytrace=False)
    pytest.skip(f"{reason} (set {REQUIRE_TOOLS}=1 to fail instead)")


def needs_isolation(missing: str | None):
    """A mark for a module or test that needs isolation the machine may lack; ``missing`` says what is
    missing (None: nothing). conftest.py turns it into ``isolation_unavailable`` before the test runs."""
    return pytest.mark.needs_isolation(missing=missing)


def nbgrader_meta(grade_id: str, **flags) -> dict:
    """A cell's metadata as nbgrader writes it (schema 3); ``flags`` sets grade, solution, locked, points."""
    nbg = {"schema_version": 3, "grade": False, "solution": False, "locked": False, "grade_id": grade_id}
    nbg.update(flags)
    return {"nbgrader": nbg}


def notebook_bytes(nb) -> bytes:
    """The file a student would upload for ``nb``: nbformat's JSON in UTF-8."""
    return nbformat.writes(nb).encode("utf-8")


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie is not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def write_folder(students: dict[str, object], folder: Path, notebook_name: str) -> dict[str, Path]:
    """A class as a plain folder of submissions: ``folder/<student>/<notebook_name>`` for each notebook."""
    paths = {}
    for student, nb in students.items():
        target = folder / student / notebook_name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(nbformat.writes(nb))
        paths[student] = target
    return paths


def points_per_test(assignment) -> dict[tuple[str, str], float]:
    """(grade_id, test) -> the points that test is worth, for every hidden test of ``assignment``, worked out
    statically the way the suite runner splits a cell's points at grading time (``points.shares``)."""
    declared, _ = declared_points(assignment.suite_dir)
    cells = {q.grade_id: q.points for q in assignment.questions}
    worth = {}
    for grade_id, tests in declared.items():
        for (test, _), points in zip(tests, shares(cells.get(grade_id, 0.0), [p for _, p in tests])):
            worth[(grade_id, test)] = points
    return worth
