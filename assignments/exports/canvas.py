"""A CSV for Canvas' gradebook import (Grades > Import) that lands in the course's existing assignment.

Canvas reads the layout of its own gradebook export: the columns ``Student, ID, SIS User ID,
SIS Login ID, Section`` identify the student (Canvas matches a row on ID, then the SIS ids, then the
name), then one column per assignment, titled ``<Assignment name> (<assignment id>)``. Canvas matches a
column to an existing assignment by that id; a title it does not know becomes a *new* assignment on
import (and counts in the course total a second time). A second row whose first cell is
``Points Possible`` carries each column's maximum; the importer skips it as a data row. An empty cell
leaves that grade as it is in Canvas.

By default the CSV has one grade column: the assignment's total (autograded plus hand grades, after the
late penalty and excused questions of ``exports/adjust.py``), under the Canvas assignment configured in
``[tool.course.canvas.assignments]`` or given on the command line. Canvas keeps an existing assignment's
points possible whatever the CSV's "Points Possible" row says (its importer sends that row's value only
when it creates a new assignment), so the total is reported on the Canvas assignment's own points
possible (``points`` in its configuration, default every question's points): an excused question then
costs nothing, and "EX" (Canvas' excused mark) stands for a student with every question excused. A
written answer with no hand grade yet counts as the instructor chose (``ungraded_written``): ``zero``, or
``omit``, which leaves that student's cell empty until it is graded (Canvas keeps what it has) and says
how many were left. One column per question comes only on request (``per_question``); Canvas creates
those columns as new assignments unless they exist there under the same titles.

``ID`` is the Canvas user id (the intake reads it from the file name, or a Canvas gradebook export given
as the roster supplies it with the SIS ids and section). Every cell goes through ``csv_safe``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..results.model import SubmissionResult
from . import csv_safe
from .adjust import reported_score
from .text import points, question_title, recorded_title

IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
UNGRADED_CHOICES = ("zero", "omit")


@dataclass(frozen=True)
class CanvasAssignment:
    """The existing Canvas assignment a course assignment's grades go to."""

    name: str
    id: str = ""  # Canvas' assignment id; without it Canvas makes a new assignment named ``name``

    @property
    def column(self) -> str:
        return f"{self.name} ({self.id})" if self.id else self.name


@dataclass(frozen=True)
class CanvasOptions:
    target: CanvasAssignment
    ungraded_written: str = "zero"  # "zero" | "omit"
    per_question: bool = False
    points_possible: float | None = None  # the Canvas assignment's; None: every question's points
    late_policy: str | None = None  # who deducts for lateness in Canvas (adjust.py); None: the configuration's


def options(
    assignment,
    name: str | None = None,
    canvas_id: str | None = None,
    ungraded_written: str | None = None,
    per_question: bool = False,
    late_policy: str | None = None,
    config: dict | None = None,
) -> CanvasOptions:
    """The Canvas options of ``assignment`` (an Assignment): the command line's values, else the course
    configuration's ``[tool.course.canvas]`` (``config``: the course's settings, when already read), else
    the assignment's title with no id (with a warning)."""
    from ..config import settings

    config = settings(assignment.course.root) if config is None else config
    table = config.get("canvas", {})
    configured = table.get("assignments", {}).get(assignment.name, {})
    name = name or configured.get("name") or assignment.title
    canvas_id = str(canvas_id or configured.get("id") or "")
    if not canvas_id:
        print(
            f"canvas: no Canvas assignment id for {assignment.name}; Canvas will create a new assignment "
            f"named {name!r} on import (set [tool.course.canvas.assignments] {assignment.name} = "
            '{ name = "...", id = ... } or pass --canvas-id)'
        )
    ungraded = ungraded_written or table.get("ungraded_written", "zero")
    if ungraded not in UNGRADED_CHOICES:
        raise ValueError(f"[tool.course.canvas] ungraded_written is {ungraded!r}; choose one of {UNGRADED_CHOICES}")
    points_possible = configured.get("points")
    points_possible = None if points_possible is None else float(points_possible)
    return CanvasOptions(CanvasAssignment(name, canvas_id), ungraded, per_question, points_possible, late_policy)


def read_gradebook_export(path: Path) -> dict[str, dict]:
    """Canvas user id -> {name, user_id, sis_user_id, sis_login_id, section}, from a gradebook CSV that
    Canvas exported (Grades > Export). Rows without an ID (Canvas' "Points Possible" and muted-status
    rows, the test student) are skipped."""
    import csv

    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        if not reader.fieldnames or not set(IDENTITY[:2]) <= set(reader.fieldnames):
            raise ValueError(f"{path} is not a Canvas gradebook export (no Student and ID columns)")
        roster = {}
        for row in reader:
            user_id = (row.get("ID") or "").strip()
            if not user_id.isdigit():
                continue
            roster[user_id] = {
                "name": (row.get("Student") or "").strip(),
                "user_id": user_id,
                "sis_user_id": (row.get("SIS User ID") or "").strip(),
                "sis_login_id": (row.get("SIS Login ID") or "").strip(),
                "section": (row.get("Section") or "").strip(),
            }
    return roster


def _question_columns(results: list[SubmissionResult], target: CanvasAssignment) -> list[tuple[str, str, float]]:
    order: dict[str, float] = {}
    for result in results:
        for question in result.questions:
            order.setdefault(question.grade_id, question.max_points)
    return [
        (
            f"{target.name}: {question_title(results[0].assignment, recorded_title(results, grade_id))}",
            grade_id,
            maximum,
        )
        for grade_id, maximum in order.items()
    ]


def assignment_points(results: list[SubmissionResult], opts: CanvasOptions) -> float:
    """The Canvas assignment's points possible: configured, else every question's points."""
    if opts.points_possible is not None:
        return opts.points_possible
    return max((sum(q.max_points for q in r.questions) for r in results), default=0.0)


def _total(result: SubmissionResult, ungraded: str, possible: float) -> str:
    score = reported_score(result, "all", possible)
    if score.ungraded and ungraded == "omit":
        return ""
    return "EX" if score.excused else points(score.points)


def _question_cell(result: SubmissionResult, grade_id: str) -> str:
    try:
        question = result.question(grade_id)
    except KeyError:
        return ""
    if question.excused:
        return "EX"  # Canvas' own mark for an excused grade
    return "" if question.points is None else points(question.points)


def rows(
    results: list[SubmissionResult],
    opts: CanvasOptions,
    roster: dict[str, dict] | None = None,
    points_possible: bool = True,
) -> list[list[str]]:
    roster = roster or {}
    per_question = _question_columns(results, opts.target) if opts.per_question and results else []
    total_max = assignment_points(results, opts)
    table = [IDENTITY + [opts.target.column] + [title for title, _, _ in per_question]]
    if points_possible:
        table.append(
            ["Points Possible", "", "", "", "", points(total_max)] + [points(maximum) for _, _, maximum in per_question]
        )
    for result in sorted(results, key=lambda r: r.student):
        info = roster.get(result.student, {})
        canvas_id = info.get("user_id") or (result.student if result.student.isdigit() else "")
        name = info.get("name") or result.student
        table.append(
            [
                name,
                canvas_id,
                info.get("sis_user_id", ""),
                info.get("sis_login_id", ""),
                info.get("section", ""),
                _total(result, opts.ungraded_written, total_max),
            ]
            + [_question_cell(result, grade_id) for _, grade_id, _ in per_question]
        )
    return table


def write_canvas_csv(
    results: list[SubmissionResult],
    path: Path,
    opts: CanvasOptions,
    roster: dict[str, dict] | None = None,
    points_possible: bool = True,
) -> Path:
    """Write the import file; ``roster`` (student -> {name, user_id, ...}) comes from the intake manifest
    or a Canvas gradebook export."""
    if opts.ungraded_written == "omit":
        waiting = sum(1 for r in results if reported_score(r).ungraded)
        if waiting:
            print(
                f"canvas: {waiting} student(s) have written answers not graded yet; their "
                f"{opts.target.column!r} cell is left empty (Canvas keeps what it has) until they are"
            )
    return csv_safe.write_rows(path, rows(results, opts, roster, points_possible))


def late_policy_warning(results: list[SubmissionResult], choice: str | None) -> str | None:
    """What ``course export`` tells the instructor when the course's late penalty is in the CSV and
    nobody has said that Canvas' own Late Policy is off (``choice`` is ``[tool.course.canvas]
    late_policy``): Canvas would deduct a second time from every submission it marks late. None when
    no penalty is in the CSV or the instructor chose."""
    penalised = sum(1 for r in results if r.late_percent)
    if choice is not None or not penalised:
        return None
    return (
        f"canvas: {penalised} student(s) lose points in this CSV to the course's late policy. If this Canvas "
        "course's Late Policy is on (Grades > Settings > Late Policies: \"Automatically apply deduction to "
        'late submissions"), Canvas deducts again from each imported grade of a submission it marks late. '
        "Say which applies in pyproject.toml, [tool.course.canvas] (or with --canvas-late-policy): "
        'late_policy = "course" once Canvas\' Late Policy is off, or late_policy = "canvas" to export the '
        "scores before lateness and let Canvas deduct from its own submission times."
    )
