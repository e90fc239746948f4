"""Source-notebook hygiene: what must hold before ``course release`` hands a notebook to nbgrader.

Every problem names the file, the cell and what is wrong, e.g.::

    source/transformers/transformers.ipynb: cell 12 (attention_tests): graded cell has no points

Checks (each one a small function over the parsed notebook, so tests can call them alone):

- the file is UTF-8 JSON (a syntax error is located to the cell it falls in), nbformat 4, and passes
  nbformat's schema validation;
- nbgrader metadata is schema version 3 and passes nbgrader's own validator; every cell that nbgrader
  tracks (grade, solution or locked) has a grade_id, and grade_ids are unique;
- every graded cell has points > 0; no answer cell is locked;
- ``### BEGIN/END SOLUTION``, ``### BEGIN/END HIDDEN TESTS`` and ``=== BEGIN/END MARK SCHEME ===``
  markers are matched, not nested, written exactly so (nbgrader reads any line containing one as the
  marker; see ``notebooks.marker_in``), and sit in the kind of cell nbgrader strips them from (a marker
  in any other cell would ship to students);
- answer code cells keep their skeleton (a solution region, not a whole-cell solution); written answers
  carry a mark scheme;
- no stored outputs or execution counts;
- code parses as Python, uses no IPython magics, and imports the course's own packages
  (``assignments``, ``autograder``) only inside hidden-test regions;
- the first cell is the markdown ``colab_badge`` cell and a code cell with grade_id ``setup`` follows;
- shortcut rules (``metadata.course``, see ``notebooks.shortcut_rules``) sit on autograded test cells only,
  name importable objects or the notebook's own top-level definitions, and use a known penalty.

Why one module of this length: it is the one list of rules a source notebook must keep before a
release; each rule is a short function, and splitting the list would scatter it.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from assignments import notebooks
from assignments.notebooks import (
    HIDDEN_TESTS,
    MARK_SCHEME,
    MARKERS,
    SOLUTION,
    has_marker,
    odd_marker_lines,
    region_errors,
    strip_region,
)

# Top-level modules that exist only in this repository; notebooks students get may never import them.
REPO_MODULES = ("assignments", "autograder")

COLAB_BADGE_ID = "colab_badge"
SETUP_ID = "setup"


@dataclass(frozen=True)
class Problem:
    file: str
    cell: int | None  # index in the notebook's cell list; None: the notebook as a whole
    grade_id: str | None
    message: str
    where: str | None = None  # replaces "cell N (grade_id)" when the cell is only approximately known

    def __str__(self) -> str:
        if self.where:
            place = self.where
        elif self.cell is None:
            place = "notebook"
        else:
            place = f"cell {self.cell} ({self.grade_id or 'no grade_id'})"
        return f"{self.file}: {place}: {self.message}"


def _meta(cell) -> dict:
    meta = cell.get("metadata", {}) if isinstance(cell, dict) else {}
    nbg = meta.get("nbgrader") if isinstance(meta, dict) else None
    return nbg if isinstance(nbg, dict) else {}


def _gid(cell) -> str | None:
    value = _meta(cell).get("grade_id")
    return value if isinstance(value, str) and value else None


# --- reading -------------------------------------------------------------------------------------------


def _json_error_cell(text: str, position: int) -> str:
    """Name the cell a JSON syntax error falls in: cells are written with "cell_type" as their first key."""
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    starts = [m.start() for m in re.finditer(r'"cell_type"\s*:', text)]
    before = sum(1 for start in starts if start < position)
    if before == 0:
        return f"notebook, before the first cell (line {line}, column {column})"
    return f"cell {before - 1} (line {line}, column {column})"


def load(path: Path, display: str | None = None) -> tuple[dict | None, list[Problem]]:
    """Parse a notebook file as JSON; on failure a Problem that locates the error."""
    name = display or str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        return None, [Problem(name, None, None, f"cannot read the file: {error.strerror or error}")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, [Problem(name, None, None, f"not UTF-8 (byte {error.start}): save the notebook as UTF-8")]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        where = _json_error_cell(text, error.pos)
        return None, [Problem(name, None, None, f"unparseable JSON: {error.msg}", where=where)]
    if not isinstance(data, dict):
        return None, [Problem(name, None, None, "unparseable notebook: the top level is not a JSON object")]
    return data, []


# --- checks --------------------------------------------------------------------------------------------


def check_format(data: dict, name: str) -> list[Problem]:
    """nbformat 4 and nbformat's JSON schema."""
    major = data.get("nbformat")
    if major != 4:
        return [
            Problem(
                name,
                None,
                None,
                f"nbformat {major!r}; source notebooks must be nbformat 4 (open and save it in a current Jupyter)",
            )
        ]
    problems, seen = [], set()
    cells = data.get("cells") if isinstance(data.get("cells"), list) else []
    try:
        errors = list(nbformat.validator.iter_validate(data))
    except Exception:  # nbformat's error reporting itself fails on some shapes (e.g. a non-string cell_type)
        for index, cell in enumerate(cells):
            kind = cell.get("cell_type") if isinstance(cell, dict) else None
            if kind not in ("code", "markdown", "raw"):
                problems.append(
                    Problem(
                        name, index, _gid(cell), f"nbformat validation: cell_type {kind!r} is not code, markdown or raw"
                    )
                )
        return problems or [
            Problem(
                name, None, None, "nbformat validation failed (run `jupyter nbconvert --to notebook` on it to see why)"
            )
        ]
    for error in errors:
        path = list(error.absolute_path)
        cell = path[1] if len(path) > 1 and path[0] == "cells" and isinstance(path[1], int) else None
        where = (
            "/".join(str(p) for p in path[2:] if p is not None) if cell is not None else "/".join(str(p) for p in path)
        )
        message = error.message if len(error.message) < 200 else error.message[:197] + "..."
        text = f"nbformat validation: {message}" + (f" (at {where})" if where else "")
        if (cell, text) in seen:
            continue
        seen.add((cell, text))
        gid = _gid(cells[cell]) if cell is not None and cell < len(cells) else None
        problems.append(Problem(name, cell, gid, text))
    return problems


def check_nbgrader(cells: list, name: str) -> list[Problem]:
    """nbgrader schema 3, grade_ids present and unique, points on every graded cell."""
    from nbgrader.nbgraderformat.v3 import MetadataValidatorV3

    validator = MetadataValidatorV3()
    problems, first_seen = [], {}
    for index, cell in enumerate(cells):
        cell_meta = cell.get("metadata")
        meta = cell_meta.get("nbgrader") if isinstance(cell_meta, dict) else None
        if meta is None:
            continue
        gid = _gid(cell)
        found = []
        if not isinstance(meta, dict):
            problems.append(Problem(name, index, None, "nbgrader metadata is not an object"))
            continue
        if meta.get("schema_version") != 3:
            found.append(
                f"nbgrader metadata schema_version is {meta.get('schema_version')!r}, expected 3 "
                "(run `nbgrader update` on the notebook)"
            )
        tracked = any(meta.get(key) for key in ("grade", "solution", "locked", "task"))
        if tracked and not gid:
            found.append("nbgrader cell has no grade_id")
        if meta.get("grade"):
            points = meta.get("points")
            if points is None:
                found.append("graded cell has no points")
            elif isinstance(points, bool) or not isinstance(points, (int, float)):
                found.append(f"graded cell has points {points!r}, not a number")
            elif points <= 0:
                found.append(f"graded cell has points {points:g}; a graded cell must be worth more than 0")
        if meta.get("solution") and meta.get("locked"):
            found.append("answer cell (solution: true) is locked; students could not edit it")
        if gid:
            if gid in first_seen:
                found.append(f"duplicate grade_id {gid!r} (first used by cell {first_seen[gid]})")
            else:
                first_seen[gid] = index
        if not found:
            try:
                validator.validate_cell(nbformat.from_dict(cell))
            except Exception as error:  # jsonschema, nbgrader ValidationError, schema mismatch
                text = str(error).split("\n")[0]
                found.append(f"nbgrader metadata: {text}")
        problems += [Problem(name, index, gid, message) for message in found]
    return problems


def check_markers(cells: list, name: str) -> list[Problem]:
    """Matched markers, each kind only in the cells nbgrader strips it from."""
    problems = []
    for index, cell in enumerate(cells):
        text, meta, gid = notebooks.cell_text(cell), _meta(cell), _gid(cell)
        kind = cell.get("cell_type")
        for label, (begin, end) in MARKERS.items():
            if not has_marker(text, (begin, end)):
                continue
            problems += [
                Problem(name, index, gid, f"{label} markers: {error}") for error in region_errors(text, begin, end)
            ]
        for number, line, written in odd_marker_lines(text):
            problems.append(
                Problem(
                    name,
                    index,
                    gid,
                    f"line {number} ({line.strip()[:60]!r}) contains a region "
                    f"marker, so nbgrader drops the whole line as one; write the "
                    f"marker on its own line exactly as '{written}'",
                )
            )
        if has_marker(text, SOLUTION) and not meta.get("solution"):
            problems.append(
                Problem(
                    name,
                    index,
                    gid,
                    "solution markers in a cell that is not an answer cell "
                    "(nbgrader: solution); they would not be stripped",
                )
            )
        if has_marker(text, HIDDEN_TESTS) and not (meta.get("grade") and kind == "code"):
            problems.append(
                Problem(
                    name,
                    index,
                    gid,
                    "hidden-test markers in a cell that is not an autograded "
                    "test cell (nbgrader: grade); they would ship",
                )
            )
        if has_marker(text, MARK_SCHEME) and not (meta.get("grade") or meta.get("task")):
            problems.append(
                Problem(
                    name,
                    index,
                    gid,
                    "mark-scheme markers in a cell that is not graded; nbgrader would refuse or ship them",
                )
            )
        if kind == "code" and meta.get("solution") and not has_marker(text, SOLUTION):
            problems.append(
                Problem(
                    name,
                    index,
                    gid,
                    "answer cell has no '### BEGIN SOLUTION' region: nbgrader "
                    "would replace the whole cell, skeleton included",
                )
            )
        if kind == "markdown" and meta.get("grade") and meta.get("solution") and not has_marker(text, MARK_SCHEME):
            problems.append(Problem(name, index, gid, "written answer has no '=== BEGIN MARK SCHEME ===' region"))
    return problems


def check_outputs(cells: list, name: str) -> list[Problem]:
    problems = []
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        if cell.get("outputs"):
            problems.append(
                Problem(
                    name,
                    index,
                    _gid(cell),
                    f"{len(cell['outputs'])} stored output(s); run Restart & Clear Output before committing",
                )
            )
        if cell.get("execution_count") is not None:
            problems.append(
                Problem(name, index, _gid(cell), f"stored execution count {cell['execution_count']}; clear outputs")
            )
    return problems


def imported_modules(code: str) -> list[tuple[int, str]]:
    """(line, top-level module) for every import statement in ``code``; raises SyntaxError."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module.split(".")[0]))
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            func = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if (
                func in ("import_module", "__import__")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.append((node.lineno, node.args[0].value.split(".")[0]))
    return found


def check_code(cells: list, name: str) -> list[Problem]:
    """Plain Python, no magics, no course-package imports outside hidden-test regions."""
    problems = []
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        gid, text = _gid(cell), notebooks.cell_text(cell)
        for number, line in enumerate(text.split("\n"), start=1):
            if re.match(r"\s*[!%]", line):
                problems.append(
                    Problem(
                        name,
                        index,
                        gid,
                        f"line {number}: IPython magic or shell escape "
                        f"{line.strip()[:40]!r}; cells must be plain Python",
                    )
                )
        visible = strip_region(text, *HIDDEN_TESTS) if not region_errors(text, *HIDDEN_TESTS) else text
        try:
            modules = imported_modules(visible)
        except SyntaxError as error:
            if not any(p.cell == index and "magic" in p.message for p in problems):
                problems.append(Problem(name, index, gid, f"Python syntax error on line {error.lineno}: {error.msg}"))
            continue
        for number, module in modules:
            if module in REPO_MODULES:
                problems.append(
                    Problem(
                        name,
                        index,
                        gid,
                        f"imports {module!r} outside a hidden-test region (line {number}); students do not have it",
                    )
                )
    return problems


def check_layout(cells: list, name: str) -> list[Problem]:
    """First cell: markdown colab_badge; then a code cell with grade_id setup before any other code."""
    problems = []
    if not cells:
        return [Problem(name, None, None, "the notebook has no cells")]
    if cells[0].get("cell_type") != "markdown" or _gid(cells[0]) != COLAB_BADGE_ID:
        problems.append(
            Problem(
                name,
                0,
                _gid(cells[0]),
                f"the first cell must be the markdown cell with grade_id '{COLAB_BADGE_ID}' (Open in Colab link)",
            )
        )
    code = [(i, c) for i, c in enumerate(cells) if c.get("cell_type") == "code"]
    if not code or _gid(code[0][1]) != SETUP_ID:
        index, cell = code[0] if code else (None, None)
        problems.append(
            Problem(
                name,
                index,
                _gid(cell) if cell else None,
                f"the first code cell must be the setup cell (grade_id '{SETUP_ID}')",
            )
        )
    return problems


def _top_level_names(cells: list) -> set[str]:
    """Functions, classes and variables the notebook's code cells define at top level."""
    names = set()
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        try:
            tree = ast.parse(notebooks.cell_text(cell))
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def check_shortcut_rules(cells: list, name: str) -> list[Problem]:
    """``metadata.course`` is well formed, on autograded test cells, and every forbidden name resolves."""
    from assignments import notebooks
    from assignments.grading.submission.shortcuts import declared_resolves

    problems, defined = [], None
    for index, cell in enumerate(cells):
        meta = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        if notebooks.COURSE_KEY not in meta:
            continue
        gid, course = _gid(cell), meta[notebooks.COURSE_KEY]
        found = []
        if not isinstance(course, dict):
            problems.append(Problem(name, index, gid, f"metadata.{notebooks.COURSE_KEY} is not an object"))
            continue
        if notebooks.is_manually_graded(cell):
            continue  # a written answer's metadata.course names its evidence: check_evidence
        if not notebooks.is_autograded_test(cell):
            found.append(
                f"metadata.{notebooks.COURSE_KEY} is only read on autograded test cells (the question); "
                "here it would be ignored"
            )
        unknown = sorted(set(course) - {notebooks.FORBIDDEN_KEY, notebooks.PENALTY_KEY})
        if unknown:
            found.append(f"metadata.{notebooks.COURSE_KEY} has unknown key(s) {', '.join(unknown)}")
        forbidden = course.get(notebooks.FORBIDDEN_KEY)
        if (
            not isinstance(forbidden, list)
            or not forbidden
            or not all(isinstance(n, str) and n and all(p.isidentifier() for p in n.split(".")) for n in forbidden)
        ):
            found.append(
                f"{notebooks.FORBIDDEN_KEY} must be a non-empty list of dotted names "
                "(e.g. 'torch.nn.GRUCell') or names the notebook defines"
            )
            forbidden = []
        for entry in forbidden:
            if "." in entry:
                if not declared_resolves(entry):
                    found.append(f"{notebooks.FORBIDDEN_KEY}: {entry!r} is not an importable object")
            else:
                defined = _top_level_names(cells) if defined is None else defined
                if entry not in defined:
                    found.append(f"{notebooks.FORBIDDEN_KEY}: {entry!r} is not defined at top level by any code cell")
        penalty = course.get(notebooks.PENALTY_KEY, notebooks.DEFAULT_PENALTY)
        if penalty not in notebooks.PENALTIES:
            found.append(f"{notebooks.PENALTY_KEY} {penalty!r}; use one of {', '.join(notebooks.PENALTIES)}")
        problems += [Problem(name, index, gid, message) for message in found]
    return problems


def check_evidence(cells: list, name: str) -> list[Problem]:
    """A written answer's ``metadata.course`` holds only ``evidence``: a non-empty list of grade_ids of
    locked code cells (not test cells) that come before the answer, each named once."""
    from assignments import notebooks

    problems, before = [], {}
    for index, cell in enumerate(cells):
        meta = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        course = meta.get(notebooks.COURSE_KEY)
        gid = _gid(cell)
        if notebooks.is_manually_graded(cell) and isinstance(course, dict):
            unknown = sorted(set(course) - {notebooks.EVIDENCE_KEY})
            if unknown:
                problems.append(
                    Problem(
                        name,
                        index,
                        gid,
                        f"metadata.{notebooks.COURSE_KEY} of a written answer "
                        f"has unknown key(s) {', '.join(unknown)}; only "
                        f"'{notebooks.EVIDENCE_KEY}' is read there",
                    )
                )
            names = course.get(notebooks.EVIDENCE_KEY, [])
            if (
                not isinstance(names, list)
                or not names
                or not all(isinstance(n, str) for n in names)
                or len(set(names)) != len(names)
            ):
                problems.append(
                    Problem(
                        name,
                        index,
                        gid,
                        f"{notebooks.EVIDENCE_KEY} must be a non-empty list of "
                        "distinct grade_ids of the cells whose outputs the answer relies on",
                    )
                )
                names = []
            for entry in names:
                target = before.get(entry)
                if target is None:
                    problems.append(
                        Problem(
                            name,
                            index,
                            gid,
                            f"{notebooks.EVIDENCE_KEY}: {entry!r} is not the grade_id of a cell before this answer",
                        )
                    )
                elif (
                    target.get("cell_type") != "code"
                    or not notebooks.is_locked(target)
                    or notebooks.is_autograded_test(target)
                ):
                    problems.append(
                        Problem(
                            name,
                            index,
                            gid,
                            f"{notebooks.EVIDENCE_KEY}: {entry!r} must be a locked "
                            "code cell (provided code or heavy work), not an answer or test cell",
                        )
                    )
        if gid:
            before.setdefault(gid, cell)
    return problems


def check_data(data: dict, name: str) -> list[Problem]:
    problems = check_format(data, name)
    if problems:  # the remaining checks assume nbformat's structure; fix these first
        return problems
    cells = [c if isinstance(c, dict) else {} for c in data.get("cells", []) or []]
    for check in (
        check_nbgrader,
        check_markers,
        check_outputs,
        check_code,
        check_layout,
        check_shortcut_rules,
        check_evidence,
    ):
        problems += check(cells, name)
    return problems


def check_notebook(path: Path, display: str | None = None) -> list[Problem]:
    """Every hygiene problem of one source notebook (empty: clean)."""
    data, problems = load(path, display)
    if data is None:
        return problems
    return check_data(data, display or str(path))
