"""Rebuild the notebook the standalone grader executes from a submission and the assignment's template.

A submission is a file the student controls completely, JSON metadata included. Nothing in it may
decide which tests run or what they are worth, so the grader does not execute the submission as it is:
it walks the template (the release notebook) in order and, cell by cell,

- takes an **answer cell** (nbgrader ``solution``) from the student's cell with the same grade_id, with
  the template's metadata; if the student's copy is gone, the template's stub is used;
- takes every **locked cell and autograded test cell** from the template, whatever the student did to it;
- keeps **cells the student added** (no nbgrader metadata) at their position, after the nearest
  preceding known cell, so helper code they wrote still runs before it is needed;
- takes every **cell without nbgrader metadata** (a student's switch, such as ``FULL_SIZE_ON_CPU = False``,
  or an ungraded answer) from the template too. A student's copy that differs is kept as an added cell,
  except a copy of a switch cell that still holds nothing but ``NAME = <constant>`` lines for the
  template's switches (the student flipped it): that is dropped without a finding, as graded runs ignore
  switches.

Cells that lost or changed their grade_id (a notebook rebuilt in Colab, an older release) are first
found by content (``recover.recover``: by text, by the names they define, by position) and given the
template's metadata back, so they are restored like any other; the recovery is a finding.

Every deviation from the template becomes a ``Finding``: edited, deleted, duplicated or reordered
locked/test cells, unknown or changed grade_ids, changed points or other nbgrader metadata, a changed
cell type, a missing answer. Outputs are dropped: a printed "10/10" is never evidence.

``check_assignment`` decides whether a notebook belongs to the assignment at all: another assignment's
notebook matches none of the graded cells, by grade_id or by content.
"""

from __future__ import annotations

import ast
import copy

import nbformat

from assignments import notebooks
from assignments.grading.submission.recover import Recovery, recover
from assignments.grading.submission.recover import normalized as _normalized
from assignments.results.model import Finding

# nbgrader metadata keys that change what a cell is or is worth; anything else (checksum, schema) is
# bookkeeping that the template supplies anyway.
GRADING_KEYS = ("grade", "solution", "locked", "points", "task")
# A switch cell is a few lines; anything longer is not one and is not parsed to find out.
SWITCH_MAX_CHARS = 2000


def _label(cell) -> str:
    kind = (
        "test cell"
        if notebooks.is_autograded_test(cell)
        else ("answer cell" if notebooks.is_answer(cell) else "locked cell")
    )
    return kind


def _clean(cell):
    """A copy of ``cell`` without outputs or execution counts (never trusted, never needed)."""
    cell = copy.deepcopy(cell)
    if cell.get("cell_type") == "code":
        cell["outputs"] = []
        cell["execution_count"] = None
    return cell


def _grading_metadata(cell) -> dict:
    meta = notebooks.nbgrader(cell)
    return {key: meta.get(key) for key in GRADING_KEYS if meta.get(key) not in (None, False)}


def switch_names(cell) -> frozenset:
    """The names a code cell without nbgrader metadata sets when it holds only ``NAME = <constant>`` lines
    and comments (a switch cell, as the release ships it or as a student flipped it); else empty."""
    source = cell.get("source")
    source = "".join(source) if isinstance(source, list) else str(source or "")
    if cell.get("cell_type") != "code" or notebooks.nbgrader(cell) or len(source) > SWITCH_MAX_CHARS:
        return frozenset()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    names: set[str] = set()
    for node in tree.body:
        if not (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant)
            and all(isinstance(target, ast.Name) for target in node.targets)
        ):
            return frozenset()
        names.update(target.id for target in node.targets)
    return frozenset(names)


def _longest_increasing(values: list[int]) -> set[int]:
    """Indices (into ``values``) of one longest strictly increasing subsequence."""
    best: list[list[int]] = []
    for i, value in enumerate(values):
        chain = max((c for c in best if values[c[-1]] < value), key=len, default=[])
        best.append(chain + [i])
    return set(max(best, key=len, default=[]))


def check_assignment(submission, template, recovery: Recovery | None = None) -> Finding | None:
    """A rejecting Finding when ``submission`` is not a notebook of the template's assignment.

    ``recovery``: ``recover(submission, template)`` when the caller has it already (``prepare`` does)."""
    found = recovery if recovery is not None else recover(submission, template)
    if found.graded and not found.graded_found:
        hint = (
            f"; its cells are named {', '.join(found.foreign[:5])}"
            if found.foreign
            else "; none of its cells has the assignment's tests or defines its answers"
        )
        return Finding(
            "wrong-assignment",
            f"this notebook has none of the assignment's {found.graded} graded cells{hint}. "
            "Submit the assignment's own notebook.",
            "error",
        )
    if len(found.foreign) > found.graded_found:
        return Finding(
            "wrong-assignment",
            f"this looks like another assignment's notebook: only {found.graded_found} of "
            f"{found.graded} graded cells match and {len(found.foreign)} cells are unknown "
            f"({', '.join(found.foreign[:5])})",
            "error",
        )
    if found.looks_foreign():
        return Finding(
            "wrong-assignment",
            f"this looks like another assignment's notebook: only {found.evidence} of its "
            f"{found.submitted} cells are cells or answers of this assignment",
            "error",
        )
    return None


def restore(submission, template, recovery: Recovery | None = None) -> tuple[nbformat.NotebookNode, list[Finding]]:
    """Return (the notebook to execute, findings). ``template`` is authoritative for order and tests.

    ``recovery``: ``recover(submission, template)`` when the caller has it already (``prepare`` does); it is
    only read, so one recovery serves the assignment check, restore and the evidence alike."""
    found = recovery if recovery is not None else recover(submission, template)
    submission = found.notebook
    findings: list[Finding] = [f for f in [found.summary()] if f] + found.findings
    template_ids = [notebooks.grade_id(c) for c in template.cells]
    by_id = {gid: cell for gid, cell in zip(template_ids, template.cells) if gid}
    position = {gid: i for i, gid in enumerate(template_ids) if gid}
    # The template's cells without a grade_id (switches, ungraded answers), by text and by switch name: a
    # student's copy of one anchors the cells added after it, so they keep their place after it.
    unnamed_template = {}
    switch_cell = {}
    for i, c in enumerate(template.cells):
        if not notebooks.grade_id(c):
            unnamed_template.setdefault(_normalized(c.get("source")), ("unnamed", i))
            for name in switch_names(c):
                switch_cell.setdefault(name, ("unnamed", i))
    switches = frozenset(switch_cell)

    student_cell: dict[str, object] = {}  # grade_id -> the student's first cell with that id
    added: dict = {}  # anchor (a grade_id, ("unnamed", template index), None: top) -> added cells, in order
    seen_order: list[str] = []
    anchor = None
    for index, cell in enumerate(submission.cells):
        gid = notebooks.grade_id(cell)
        where = f"cell {index + 1}"
        if gid and gid in by_id:
            if gid in student_cell:
                original = by_id[gid]
                if notebooks.is_answer(original) and cell.get("cell_type") == "code" == original.get("cell_type"):
                    findings.append(
                        Finding(
                            "cell-duplicated",
                            f"answer cell {gid} appears more than once; the copy at {where} "
                            "runs after the first, as your own code",
                            "warning",
                            gid,
                        )
                    )
                    added.setdefault(anchor, []).append(_as_added(cell))
                else:
                    findings.append(
                        Finding(
                            "cell-duplicated",
                            f"{_label(original)} {gid} appears more than once; the copy at {where} was ignored",
                            "warning",
                            gid,
                        )
                    )
                continue
            student_cell[gid] = cell
            seen_order.append(gid)
            anchor = gid
            continue
        if gid or notebooks.nbgrader(cell):
            meta = notebooks.nbgrader(cell)
            claims = ", ".join(f"{k}={meta[k]!r}" for k in GRADING_KEYS if meta.get(k) not in (None, False))
            findings.append(
                Finding(
                    "unknown-grade-id",
                    f"{where} has nbgrader metadata with grade_id {gid!r}, which the "
                    f"assignment does not have{f' ({claims})' if claims else ''}; "
                    "it is treated as an ordinary cell you added and is worth nothing",
                    "warning",
                    gid or where,
                )
            )
        elif _normalized(cell.get("source")) in unnamed_template:
            anchor = unnamed_template[_normalized(cell.get("source"))]
            continue  # an unnamed cell of the template itself; the template's copy is used
        elif switches and switch_names(cell) and switch_names(cell) <= switches:
            anchor = switch_cell[min(switch_names(cell))]
            continue  # a switch the student flipped: the template's copy runs, and graded runs ignore it
        added.setdefault(anchor, []).append(_as_added(cell))

    moved = _moved(seen_order, position)
    if moved:
        findings.append(
            Finding(
                "cells-reordered",
                f"cells were moved out of the assignment's order: {', '.join(moved)}; the assignment's order was used",
                "warning",
                moved[0],
            )
        )

    cells = [_clean(c) for c in added.get(None, [])]
    for i, (template_cell, gid) in enumerate(zip(template.cells, template_ids)):
        cells.append(_restored_cell(template_cell, gid, student_cell.get(gid) if gid else None, findings))
        cells.extend(_clean(c) for c in added.get(gid or ("unnamed", i), []))
    count = sum(len(v) for v in added.values())
    if count:
        findings.append(
            Finding("student-cells-added", f"{count} cell(s) you added were kept at their position", "info")
        )

    restored = copy.deepcopy(template)
    restored.cells = cells
    return restored, findings


def _as_added(cell):
    """A student cell kept as their own code: stripped of any nbgrader metadata it claimed."""
    cell = copy.deepcopy(cell)
    cell.get("metadata", {}).pop("nbgrader", None)
    return cell


def _moved(seen_order: list[str], position: dict[str, int]) -> list[str]:
    indices = [position[g] for g in seen_order]
    keep = _longest_increasing(indices)
    return [g for i, g in enumerate(seen_order) if i not in keep]


def _restored_cell(template_cell, gid, student, findings):
    if gid is None:
        return _clean(template_cell)
    label = _label(template_cell)
    if student is None:
        if notebooks.is_answer(template_cell):
            findings.append(
                Finding(
                    "answer-missing",
                    f"answer cell {gid} is missing from your notebook; the empty "
                    "template was used, so its tests cannot pass",
                    "error",
                    gid,
                )
            )
        else:
            code = "test-cell-deleted" if notebooks.is_autograded_test(template_cell) else "locked-cell-deleted"
            findings.append(Finding(code, f"{label} {gid} was deleted; the original was restored", "warning", gid))
        return _clean(template_cell)

    expected, claimed = _grading_metadata(template_cell), _grading_metadata(student)
    if expected != claimed:
        changes = ", ".join(
            f"{key}: {expected.get(key)!r} -> {claimed.get(key)!r}"
            for key in GRADING_KEYS
            if expected.get(key) != claimed.get(key)
        )
        findings.append(
            Finding(
                "metadata-changed",
                f"nbgrader metadata of {label} {gid} was changed ({changes}); the assignment's metadata was used",
                "warning",
                gid,
            )
        )
    if student.get("cell_type") != template_cell.get("cell_type"):
        findings.append(
            Finding(
                "cell-type-changed",
                f"{label} {gid} was changed from {template_cell.get('cell_type')} to "
                f"{student.get('cell_type')}; it was graded as {template_cell.get('cell_type')}",
                "warning",
                gid,
            )
        )

    if notebooks.is_answer(template_cell):
        cell = _clean(template_cell)
        cell["source"] = (
            "".join(student.get("source"))
            if isinstance(student.get("source"), list)
            else str(student.get("source") or "")
        )
        return cell
    if _normalized(student.get("source")) != _normalized(template_cell.get("source")):
        code = "test-cell-edited" if notebooks.is_autograded_test(template_cell) else "locked-cell-edited"
        findings.append(Finding(code, f"{label} {gid} was edited; the original was restored", "warning", gid))
    return _clean(template_cell)


__all__ = ["restore", "check_assignment", "switch_names", "GRADING_KEYS"]
