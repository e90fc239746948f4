"""The notebooks every self-test starts from, and the first two checks.

The reference is the source notebook (its answer cells hold the solution; hidden tests sit in cells never
executed); the blank is what students receive; ``filled_release`` and ``as_submitted`` answer the release
as a student types it. The reference must keep full marks over seeds (``check_reference``) and the blank
release must score zero (``check_blank``).
"""

from __future__ import annotations

import copy

from assignments import notebooks
from assignments.course import Assignment
from assignments.grading.doors.inprocess import execute_cells, grade_namespace, grade_notebook
from assignments.results.model import SubmissionResult


def reference_notebook(assignment: Assignment):
    """The source notebook: answer cells hold the solution; hidden tests sit in cells never executed."""
    return assignment.source_notebook()


def blank_notebook(assignment: Assignment):
    """What students receive, made from the source by nbgrader's own preprocessors (no release/ needed)."""
    return notebooks.blank_notebook(assignment.source_notebook())


def filled_release(assignment: Assignment, replacements: dict[str, str] | None = None, others: bool = True):
    """The release notebook with ``replacements`` in their answer cells and every other answer cell filled
    from the source, or left as released when ``others`` is False."""
    answers = {
        notebooks.grade_id(c): notebooks.student_text(c)
        for c in assignment.source_notebook().cells
        if notebooks.is_answer(c)
    }
    nb = copy.deepcopy(assignment.release_notebook())
    for cell in nb.cells:
        gid = notebooks.grade_id(cell) if notebooks.is_answer(cell) else None
        if gid in (replacements or {}):
            cell.source = replacements[gid]
        elif gid is not None and others:
            cell.source = answers[gid]
    return nb


def as_submitted(assignment: Assignment, nb):
    """The release notebook answered as ``nb`` answers it, typed as a student would (no solution markers)."""
    return filled_release(
        assignment, {notebooks.grade_id(c): notebooks.student_text(c) for c in nb.cells if notebooks.is_answer(c)}
    )


def full_marks_problems(result: SubmissionResult, label: str, only: set[str] | None = None) -> list[str]:
    """What keeps ``result`` from full marks. ``only``: just these questions (the rest of the notebook was left
    as released, so its cells fail and its questions score 0 by design)."""
    problems = [f"{label}: suite problem: {f.message}" for f in result.findings if f.code == "suite-problem"]
    if only is None:
        problems += [f"{label}: notebook cell failed: {f.message}" for f in result.findings if f.code == "cell-error"]
    for q in result.questions:
        if q.kind == "autograded" and q.points != q.max_points and (only is None or q.grade_id in only):
            failed = "; ".join(f"{t.name}: {t.message}" for t in q.tests if t.outcome != "passed")
            problems.append(f"{label}: {q.grade_id} scored {q.points}/{q.max_points} ({failed or 'no tests ran'})")
    return problems


def check_reference(assignment: Assignment, seeds=(0,)) -> list[str]:
    """Grade the reference once per seed (the notebook runs once; each seed is a full grading)."""
    namespace, findings = execute_cells(reference_notebook(assignment))
    problems = []
    for seed in seeds:
        result = grade_namespace(assignment, namespace, findings, "reference", seed=seed)
        problems += full_marks_problems(result, f"reference (seed {seed})")
    return problems


def check_blank(assignment: Assignment) -> list[str]:
    result = grade_notebook(assignment, blank_notebook(assignment), "blank")
    return [
        f"blank release: {q.grade_id} scored {q.points}/{q.max_points}"
        for q in result.questions
        if q.kind == "autograded" and q.points
    ]
