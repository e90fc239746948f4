"""Leak scan of a staged release: markers, hidden tests, mark schemes, solution lines and the course's own
packages must not reach students; the release must be self-contained (Colab link, setup cell)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from assignments import notebooks
from assignments.release import lms
from assignments.release.errors import StepFailed
from assignments.release.staging import Stage

# Text that must never appear anywhere in release/ (besides every reference solution line).
FORBIDDEN = (
    ("BEGIN SOLUTION", "a solution marker"),
    ("END SOLUTION", "a solution marker"),
    ("BEGIN HIDDEN TESTS", "a hidden-test marker"),
    ("END HIDDEN TESTS", "a hidden-test marker"),
    ("BEGIN MARK SCHEME", "a mark-scheme marker"),
    ("END MARK SCHEME", "a mark-scheme marker"),
    ("hidden_tests(", "a hidden-test call"),
    ("assignments.grading", "the course's grading package"),
)
FORBIDDEN_PATTERNS = (  # matched per line of cell sources (notebooks) or of the file (other text files)
    (re.compile(r"^\s*(?:import|from)\s+autograder\b"), "an import of autograder"),
    (re.compile(r"^\s*(?:import|from)\s+assignments\b"), "an import of the course package"),
    (re.compile(r"\bautograder[./][A-Za-z_]"), "a path or module in autograder/"),
)


_STUB_LINES = {"# YOUR CODE HERE", "raise NotImplementedError()", "YOUR ANSWER HERE"}


SUBSTRING_MIN = 25  # secret lines at least this long are also looked for inside longer lines


def _secret_and_shipped(source_nb) -> tuple[set[str], str]:
    secret, shipped = set(), []
    for cell in source_nb.cells:
        text = cell.source
        meta = notebooks.nbgrader(cell)
        inside = []
        for begin, end in (notebooks.SOLUTION, notebooks.HIDDEN_TESTS, notebooks.MARK_SCHEME):
            region, text = notebooks.split_regions(text, begin, end)
            text = "\n".join(text)
            inside += region
        if meta.get("solution") and not notebooks.has_marker(cell.source, notebooks.SOLUTION):
            inside += text.split("\n")  # a whole-cell solution (written answer): all of it is secret
        else:
            shipped += [line.strip() for line in text.split("\n")]
        secret |= {line.strip() for line in inside}
    secret = {line for line in secret - set(shipped) - _STUB_LINES if len(line.replace(" ", "")) >= 4}
    return secret, "\n".join(shipped)


def secret_lines(source_nb) -> set[str]:
    """Stripped lines that exist in the source only inside solutions, hidden tests, mark schemes or model
    answers (a line that also appears in a shipped part of the source is not a secret)."""
    return _secret_and_shipped(source_nb)[0]


def _text_lines(path: Path, text: str) -> list[tuple[str, str]]:
    """(where, line) for every line a reader sees: cell sources for notebooks, the text otherwise."""
    if path.suffix != ".ipynb":
        return [("", line) for line in text.split("\n")]
    nb = nbformat.reads(text, as_version=4)
    return [
        (f"cell {index} ({notebooks.grade_id(cell)})", line)
        for index, cell in enumerate(nb.cells)
        for line in cell.source.split("\n")
    ]


def leaks(folder: Path, source_nb, display: str | None = None, paths=None) -> list[str]:
    """Everything in a release folder that students must not see (empty: nothing). ``paths``: only these
    files under ``folder`` (default: every file in it)."""
    secrets, shipped = _secret_and_shipped(source_nb)
    # long secret lines that the source never shows inside a longer shipped line (e.g. quoted in a hint)
    embedded = [line for line in secrets if len(line) >= SUBSTRING_MIN and line not in shipped]
    problems = []
    found = Path(folder).rglob("*") if paths is None else (Path(p) for p in paths)
    for path in sorted(p for p in found if p.is_file()):
        name = f"{display or folder}/{path.relative_to(folder).as_posix()}"
        try:
            text = path.read_text(encoding="utf-8")
            lines = _text_lines(path, text)
        except (UnicodeDecodeError, nbformat.reader.NotJSONError, ValueError) as error:
            if path.suffix == ".ipynb":
                problems.append(f"{name}: cannot be read as a notebook ({error})")
            continue
        for needle, what in FORBIDDEN:
            if needle in text:
                problems.append(f"{name}: contains {what} ({needle!r})")
        reported = 0
        for where, line in lines:
            prefix = f"{name}: {where + ': ' if where else ''}"
            for pattern, what in FORBIDDEN_PATTERNS:
                match = pattern.search(line)
                if match:
                    problems.append(f"{prefix}contains {what} ({line.strip()[:80]!r})")
            stripped = line.strip()
            if reported >= 10 or not stripped:
                continue
            if stripped in secrets:
                reported += 1
                problems.append(f"{prefix}reference solution line {stripped[:80]!r}")
            else:
                inner = next((secret for secret in embedded if secret in stripped), None)
                if inner:
                    reported += 1
                    problems.append(f"{prefix}contains the reference solution line {inner[:80]!r}")
    return problems


def check_release(stage: Stage) -> None:
    source_nb = notebooks.read(stage.source_nb_path)
    display = f"release/{stage.assignment}"
    problems = leaks(stage.release_folder, source_nb, display)
    nb = notebooks.read(stage.release_folder / stage.notebook)
    problems += [
        f"{display}/{stage.notebook}: {p}"
        for p in lms.self_contained_problems(nb, stage.assignment, stage.notebook, stage.course.root)
    ]
    if problems:
        raise StepFailed("\n".join(problems))
