"""Reading nbgrader metadata: which cells are answers, tests, written questions, and their points."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .paths import RELEASE_DIR, SOURCE_DIR


def nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def grade_id(cell) -> str | None:
    return nbgrader(cell).get("grade_id")


def is_answer(cell) -> bool:
    """A cell the student writes in (nbgrader: solution)."""
    return bool(nbgrader(cell).get("solution"))


def is_autograded_test(cell) -> bool:
    """A locked code cell whose points come from running it (nbgrader: grade, not solution)."""
    meta = nbgrader(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def is_manually_graded(cell) -> bool:
    """A written answer or task that a person scores in formgrader."""
    meta = nbgrader(cell)
    return bool(meta.get("task")) or (bool(meta.get("grade")) and bool(meta.get("solution")))


def is_locked(cell) -> bool:
    meta = nbgrader(cell)
    return bool(meta.get("locked")) or is_autograded_test(cell)


@dataclass(frozen=True)
class Question:
    grade_id: str
    points: float
    kind: str  # "autograded" or "manual"


def questions(nb) -> list[Question]:
    """Every graded cell in notebook order."""
    found = []
    for cell in nb.cells:
        if is_autograded_test(cell):
            found.append(Question(grade_id(cell), float(nbgrader(cell).get("points", 0)), "autograded"))
        elif is_manually_graded(cell):
            found.append(Question(grade_id(cell), float(nbgrader(cell).get("points", 0)), "manual"))
    return found


def cells_to_run(nb) -> list:
    """Code cells the grader executes: everything but the autograded test cells (hidden tests decide)."""
    return [cell for cell in nb.cells if cell.get("cell_type") == "code" and not is_autograded_test(cell)]


def assignment_names() -> list[str]:
    """Assignments in course order (the order of ``source/`` folder names is not the course order)."""
    from .catalog import COURSE_ORDER

    present = {p.name for p in SOURCE_DIR.iterdir() if p.is_dir() and any(p.glob("*.ipynb"))}
    return [name for name in COURSE_ORDER if name in present] + sorted(present - set(COURSE_ORDER))


def notebook_path(assignment: str, root: Path = SOURCE_DIR) -> Path:
    notebooks = sorted(p for p in (root / assignment).glob("*.ipynb"))
    if len(notebooks) != 1:
        raise FileNotFoundError(f"expected one notebook in {root / assignment}, found {len(notebooks)}")
    return notebooks[0]


def read(path: Path):
    """Read a notebook as nbformat 4 (older versions are converted)."""
    with open(path, encoding="utf-8") as handle:
        return nbformat.read(handle, as_version=4)


def source_notebook(assignment: str):
    return read(notebook_path(assignment, SOURCE_DIR))


def release_notebook(assignment: str):
    return read(notebook_path(assignment, RELEASE_DIR))


def dumps(nb) -> str:
    """Serialize the way nbformat writes files, so byte comparisons are meaningful."""
    return nbformat.writes(nb) + ("" if nbformat.writes(nb).endswith("\n") else "\n")


def load_json(path: Path) -> dict:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)
