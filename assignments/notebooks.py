"""The notebook format: nbgrader's cell metadata, its three region markers, and what students receive.

One module answers, for every other module, which cells are answers, tests and written questions (and
their points), where the solution, hidden-test and mark-scheme regions are (with the one matching rule
nbgrader applies), what the blank release of a source notebook is, and what a student would have typed.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

# The largest notebook file any door reads (a filled notebook is well under 1 MB; outputs add a few MB).
MAX_NOTEBOOK_BYTES = 50 * 1024 * 1024


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
    # The nearest Markdown heading above the cell, as the student reads it (exports title questions by it).
    heading: str = field(default="", compare=False)


_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")
_POINTS_SUFFIX = re.compile(r"\s*\(\s*\d+(\.\d+)?\s+points?\s*\)\s*$", re.IGNORECASE)


def _last_heading(cell, current: str) -> str:
    """The last heading line of a Markdown cell (without a "(N points)" tail), else ``current``."""
    for line in cell.source.splitlines():
        match = _HEADING.match(line)
        if match and match.group(1):
            current = _POINTS_SUFFIX.sub("", match.group(1).strip("# ").strip())
    return current


def questions(nb) -> list[Question]:
    """Every graded cell in notebook order."""
    found = []
    heading = ""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and not is_manually_graded(cell):
            heading = _last_heading(cell, heading)
        if is_autograded_test(cell):
            found.append(Question(grade_id(cell), float(nbgrader(cell).get("points", 0)), "autograded", heading))
        elif is_manually_graded(cell):
            found.append(Question(grade_id(cell), float(nbgrader(cell).get("points", 0)), "manual", heading))
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
PENALTIES = ("flag", "zero")  # flag: a finding only (default); zero: the question scores 0
DEFAULT_PENALTY = "flag"


def course_metadata(cell) -> dict:
    """The cell's ``metadata.course`` object (empty when absent or not an object)."""
    meta = cell.get("metadata", {}) if isinstance(cell, dict) else {}
    value = meta.get(COURSE_KEY) if isinstance(meta, dict) else None
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class ShortcutRule:
    question: str  # grade_id of the autograded test cell
    forbidden: tuple[str, ...]  # dotted importable names, or bare names of notebook definitions
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
            rules[grade_id(cell)] = ShortcutRule(
                grade_id(cell), forbidden, penalty if penalty in PENALTIES else DEFAULT_PENALTY
            )
    return rules


# --- evidence cells ---------------------------------------------------------------------------------------
#
# A written answer that reasons about the student's own results names, in the SOURCE notebook, the cells
# whose outputs it relies on (locked code cells before it, by grade_id):
#
#     "metadata": {"nbgrader": {"grade": true, "solution": true, "grade_id": "transfer_plot_written", ...},
#                  "course": {"evidence": ["transfer_run"]}}
#
# Grading keeps those cells' outputs as the student submitted them (``assignments/grading/submission/evidence.py``), because
# the grader's own re-execution runs on tiny data and prints other numbers. ``course hygiene`` checks the
# names. Like the shortcut rules, grading reads the list from the source only.

EVIDENCE_KEY = "evidence"


def evidence_cells(nb) -> dict[str, tuple[str, ...]]:
    """written-answer grade_id -> the grade_ids of its evidence cells, in the order the source lists them."""
    found = {}
    for cell in nb.cells:
        names = course_metadata(cell).get(EVIDENCE_KEY)
        if is_manually_graded(cell) and isinstance(names, list):
            found[grade_id(cell)] = tuple(n for n in names if isinstance(n, str) and n)
    return found


def cells_to_run(nb) -> list:
    """Code cells the grader executes: everything but the autograded test cells (hidden tests decide)."""
    return [cell for cell in nb.cells if cell.get("cell_type") == "code" and not is_autograded_test(cell)]


def read(path: Path):
    """Read a notebook as nbformat 4 (older versions are converted)."""
    with open(path, encoding="utf-8") as handle:
        return nbformat.read(handle, as_version=4)


def dumps(nb) -> str:
    """The text nbformat writes to a file (ending in a newline), so byte comparisons are meaningful."""
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


# --- region markers ---------------------------------------------------------------------------------------
#
# nbgrader's ClearSolutions, ClearHiddenTests and ClearMarkScheme treat a line as a marker when the
# delimiter is a SUBSTRING of it, and drop the whole line. That is the one rule every module here applies
# (``marker_in``). ``course hygiene`` refuses marker lines that are not exactly the written form below
# (indentation aside), so no reader can take "x = 'END SOLUTION'" or "### BEGIN SOLUTION # todo" for
# anything but what nbgrader will do with it.

SOLUTION = ("BEGIN SOLUTION", "END SOLUTION")
HIDDEN_TESTS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
MARK_SCHEME = ("BEGIN MARK SCHEME", "END MARK SCHEME")
MARKERS = {"solution": SOLUTION, "hidden tests": HIDDEN_TESTS, "mark scheme": MARK_SCHEME}
WRITTEN_FORM = {  # delimiter -> the marker line as authors write it
    "BEGIN SOLUTION": "### BEGIN SOLUTION",
    "END SOLUTION": "### END SOLUTION",
    "BEGIN HIDDEN TESTS": "### BEGIN HIDDEN TESTS",
    "END HIDDEN TESTS": "### END HIDDEN TESTS",
    "BEGIN MARK SCHEME": "=== BEGIN MARK SCHEME ===",
    "END MARK SCHEME": "=== END MARK SCHEME ===",
}


def marker_in(line: str) -> str | None:
    """The delimiter nbgrader would see in ``line`` (BEGIN checked before END, as nbgrader does)."""
    for delimiter in WRITTEN_FORM:
        if delimiter in line:
            return delimiter
    return None


def odd_marker_lines(text: str) -> list[tuple[int, str, str]]:
    """(line number, line, written form) of marker lines that differ from the written form."""
    odd = []
    for number, line in enumerate(text.split("\n"), start=1):
        delimiter = marker_in(line)
        if delimiter is not None and line.strip() != WRITTEN_FORM[delimiter]:
            odd.append((number, line, WRITTEN_FORM[delimiter]))
    return odd


def region_errors(text: str, begin: str, end: str) -> list[str]:
    """What is wrong with the begin/end markers in ``text``: unmatched or nested regions."""
    errors, open_line = [], None
    for number, line in enumerate(text.split("\n"), start=1):
        if begin in line:
            if open_line is not None:
                errors.append(
                    f"'{begin}' on line {number} opens a region inside the one opened on line {open_line} (nested)"
                )
            open_line = number
        elif end in line:
            if open_line is None:
                errors.append(f"'{end}' on line {number} has no matching '{begin}'")
            open_line = None
    if open_line is not None:
        errors.append(f"'{begin}' on line {open_line} has no matching '{end}'")
    return errors


def has_marker(text: str, markers: tuple[str, str]) -> bool:
    return any(marker in text for marker in markers)


def split_regions(text: str, begin: str, end: str) -> tuple[list[str], list[str]]:
    """(lines inside begin/end regions, lines outside), marker lines dropped. Assumes matched markers."""
    inside, outside, in_region = [], [], False
    for line in text.split("\n"):
        if begin in line:
            in_region = True
        elif end in line:
            in_region = False
        else:
            (inside if in_region else outside).append(line)
    return inside, outside


def strip_region(text: str, begin: str, end: str) -> str:
    """``text`` without its begin/end regions (markers included)."""
    return "\n".join(split_regions(text, begin, end)[1])


def split_at_hidden_tests(source: str) -> tuple[str, str]:
    """(visible checks, hidden-test region to the end) of a test cell; ("source", "") without a region."""
    lines = source.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if HIDDEN_TESTS[0] in line:
            return "".join(lines[:index]), "".join(lines[index:])
    return source, ""


def text(value) -> str:
    """An nbformat text field (a cell's source, an output's text) as one string: nbformat allows a list
    of lines, and a damaged notebook may hold None or another type there."""
    return "".join(str(part) for part in value) if isinstance(value, list) else str(value or "")


def cell_text(cell) -> str:
    """A cell's source as one string, whatever form the file gave it (see ``text``)."""
    return text(cell.get("source")) if isinstance(cell, dict) else ""


def student_text(cell) -> str:
    """What a student would have typed in an answer cell: the solution without markers or mark scheme."""
    text = strip_region(cell.source, *MARK_SCHEME)
    lines = [line for line in text.split("\n") if marker_in(line) not in SOLUTION]
    return "\n".join(lines).strip() + "\n"


def blank_notebook(source_nb):
    """What students receive, made from a source notebook by nbgrader's own preprocessors."""
    from nbgrader.preprocessors import ClearHiddenTests, ClearMarkScheme, ClearSolutions

    nb = copy.deepcopy(source_nb)
    resources = {}
    for step in (ClearSolutions(), ClearHiddenTests(), ClearMarkScheme(enforce_metadata=False)):
        nb, resources = step.preprocess(nb, resources)
    return nb
