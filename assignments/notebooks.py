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


# --- shortcut rules -------------------------------------------------------------------------------------
#
# An autograded test cell of the SOURCE notebook may name the library objects an answer to that question
# must not use, beside its nbgrader points:
#
#     "metadata": {"nbgrader": {"grade": true, "grade_id": "square_mask_tests", "points": 2, ...},
#                  "course": {"forbidden_calls": ["torch.nn.Transformer.generate_square_subsequent_mask"],
#                             "shortcut_penalty": "flag"}}
#
# A dotted name is an importable object (any alias or re-export of the same object counts); a bare name
# is a definition of the notebook itself (e.g. "Model" where the contract says "do not build a model").
# The key ships in release/ (nbgrader keeps cell metadata) and that is deliberate: the list is what a
# student must not call, i.e. the contract the skeleton states in words, and the oracle names it holds
# are already in the notebooks' prose ("compared with nn.GRUCell"); knowing them earns nothing, while a
# student who reads the metadata learns exactly which calls are checked. Grading reads the rules from the
# source, never from a submission, so a student who edits or deletes the key changes nothing.

COURSE_KEY = "course"
FORBIDDEN_KEY = "forbidden_calls"
PENALTY_KEY = "shortcut_penalty"
PENALTIES = ("flag", "zero")     # flag: a finding only (default); zero: the question scores 0
DEFAULT_PENALTY = "flag"


def course_metadata(cell) -> dict:
    """The cell's ``metadata.course`` object (empty when absent or not an object)."""
    meta = cell.get("metadata", {}) if isinstance(cell, dict) else {}
    value = meta.get(COURSE_KEY) if isinstance(meta, dict) else None
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class ShortcutRule:
    question: str                  # grade_id of the autograded test cell
    forbidden: tuple[str, ...]     # dotted importable names, or bare names of notebook definitions
    penalty: str = DEFAULT_PENALTY


def shortcut_rules(nb) -> dict[str, ShortcutRule]:
    """question grade_id -> its shortcut rule, for every autograded test cell that declares one.

    Malformed entries are left out here (``course hygiene`` reports them, so a release never has any)."""
    rules = {}
    for cell in nb.cells:
        meta = course_metadata(cell)
        names = meta.get(FORBIDDEN_KEY)
        if not is_autograded_test(cell) or not isinstance(names, list):
            continue
        forbidden = tuple(n for n in names if isinstance(n, str) and n)
        penalty = meta.get(PENALTY_KEY, DEFAULT_PENALTY)
        if forbidden:
            rules[grade_id(cell)] = ShortcutRule(grade_id(cell), forbidden,
                                                 penalty if penalty in PENALTIES else DEFAULT_PENALTY)
    return rules


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
