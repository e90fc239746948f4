"""A per-question CSV for Canvas' gradebook import (Grades > Import).

Canvas reads the layout of its own gradebook export: the columns ``Student, ID, SIS User ID,
SIS Login ID, Section`` identify the student (Canvas matches a row on ID, the SIS ids or the name), then
one column per assignment. A column whose title is not an existing assignment becomes a new assignment
on import. A second row whose first cell is ``Points Possible`` carries each column's maximum (Canvas'
own export has it and the import skips it as a data row). An empty cell leaves that grade unchanged.

Here each question is one column (``<assignment>: <question>``), followed by the autograded total and
the total over all questions (empty until every written answer has a hand grade). ``ID`` is the Canvas
user id that intake read from the file name (it is also the student key for Canvas downloads).
"""

from __future__ import annotations

import csv
from pathlib import Path

from ..results.model import SubmissionResult
from .text import points

IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def columns(results: list[SubmissionResult], assignment: str) -> list[tuple[str, str | None, float]]:
    """(column title, grade_id or a total's tag, max points), in notebook order."""
    order: dict[str, float] = {}
    for result in results:
        for question in result.questions:
            order.setdefault(question.grade_id, question.max_points)
    cols = [(f"{assignment}: {grade_id}", grade_id, maximum) for grade_id, maximum in order.items()]
    autograded_max = max((r.autograded_max for r in results), default=0.0)
    total_max = sum(order.values())
    cols.append((f"{assignment}: autograded total", "#autograded", autograded_max))
    cols.append((f"{assignment}: total", "#total", total_max))
    return cols


def _cell(result: SubmissionResult, tag: str | None) -> str:
    if tag == "#autograded":
        return points(result.autograded_points)
    if tag == "#total":
        if any(q.points is None for q in result.questions):
            return ""   # a written answer still waits for a hand grade
        return points(sum(q.points for q in result.questions))
    try:
        value = result.question(tag).points
    except KeyError:
        return ""
    return "" if value is None else points(value)


def rows(results: list[SubmissionResult], assignment: str, roster: dict[str, dict] | None = None,
         points_possible: bool = True) -> list[list[str]]:
    roster = roster or {}
    cols = columns(results, assignment)
    table = [IDENTITY + [title for title, _, _ in cols]]
    if points_possible:
        table.append(["Points Possible", "", "", "", ""] + [points(maximum) for _, _, maximum in cols])
    for result in sorted(results, key=lambda r: r.student):
        info = roster.get(result.student, {})
        canvas_id = info.get("user_id") or (result.student if result.student.isdigit() else "")
        name = info.get("name") or result.student
        table.append([name, canvas_id, info.get("sis_user_id", ""), info.get("sis_login_id", ""),
                      info.get("section", "")] + [_cell(result, tag) for _, tag, _ in cols])
    return table


def write_canvas_csv(results: list[SubmissionResult], path: Path, assignment: str | None = None,
                     roster: dict[str, dict] | None = None, points_possible: bool = True) -> Path:
    """Write the import file; ``roster`` (student -> {name, user_id, ...}) comes from the intake manifest."""
    assignment = assignment or (results[0].assignment if results else "assignment")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows(results, assignment, roster, points_possible))
    return path
