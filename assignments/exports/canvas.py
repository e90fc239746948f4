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
costs nothing, and "EX" (Canvas' excused mark) stands for a student with every question excused.

No grade before it is true: a student with a written answer no grader has graded yet (``adjust.is_pending``)
gets no total by default (``ungraded_written = "withhold"``): their cell is left empty, which Canvas reads
as "leave this grade as it is", until every written answer of theirs has a hand grade. Only when the
instructor asks for partial totals (``"partial"``, in ``[tool.course.canvas]`` or ``--ungraded-written``)
is the total posted with the pending answers counting nothing yet. Either way the export prints how many
answers of how many students are pending. (``"omit"`` and ``"zero"``, the earlier names, are read as
``"withhold"`` and ``"partial"``.) One column per question comes only on request (``per_question``); a
pending answer's cell is always empty there. Canvas creates those columns as new assignments unless they
exist there under the same titles.

Identity: each platform has its own student key, and this CSV carries Canvas's only (``identities``). A row's
``ID`` is a Canvas user id from Canvas itself: the name Canvas gave a file in its bulk download (the intake's
record says so), or a Canvas gradebook export given as the roster. Another platform's student is placed by a
join with that export on a key both sides hold (a Gradescope student id or email against the SIS User ID or
SIS Login ID; a plain folder's name, which the instructor wrote, against the same), never by reading its key
as a Canvas id: an all-digit Gradescope student id is what its student typed. A join that puts two students
on one Canvas row, or one student on two, refuses each of them with a finding naming the others, and the
rest of the class is written; a student with no Canvas identity is left out (Canvas matches a row it does
not know by its name, which may be a student's own text), also with a finding. Every cell goes through
``csv_safe``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assignments.escaping import one_line
from assignments.exports import csv_safe
from assignments.exports.adjust import reported_score
from assignments.exports.text import question_title, recorded_title
from assignments.points import points_text
from assignments.results.model import SubmissionResult
from assignments.settings import setting

IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
UNGRADED_CHOICES = setting("canvas.ungraded_written").choices
UNGRADED_RENAMED = {"omit": "withhold", "zero": "partial"}  # the earlier names of the same choices


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
    ungraded_written: str = setting("canvas.ungraded_written").default  # one of UNGRADED_CHOICES
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
) -> CanvasOptions:
    """The Canvas options of ``assignment`` (an Assignment): the command line's values, else its course's
    settings (``[tool.course.canvas]``), else the assignment's title with no id (with a warning)."""
    configured = assignment.course.settings.canvas
    target = configured.assignment(assignment.name)
    name = name or target.name or assignment.title
    canvas_id = str(canvas_id or target.id or "")
    if not canvas_id:
        print(
            f"canvas: no Canvas assignment id for {assignment.name}; Canvas will create a new assignment "
            f"named {name!r} on import (set [tool.course.canvas.assignments] {assignment.name} = "
            '{ name = "...", id = ... } or pass --canvas-id)'
        )
    ungraded = ungraded_written or configured.ungraded_written
    if ungraded in UNGRADED_RENAMED:
        print(
            f'canvas: ungraded_written = "{ungraded}" is the earlier name of "{UNGRADED_RENAMED[ungraded]}"; '
            "reading it as that"
        )
        ungraded = UNGRADED_RENAMED[ungraded]
    if ungraded not in UNGRADED_CHOICES:
        raise ValueError(f"[tool.course.canvas] ungraded_written is {ungraded!r}; choose one of {UNGRADED_CHOICES}")
    return CanvasOptions(CanvasAssignment(name, canvas_id), ungraded, per_question, target.points, late_policy)


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


def _who(student: str, info: dict | None) -> str:
    """A student as a finding names them: their key, and the name their platform gave, as one plain line."""
    name = (info or {}).get("name") or ""
    return f"{student} ({one_line(name, 60)})" if name and name != student else student


def _row_text(row: dict) -> str:
    return f"Canvas user {row['user_id']} ({one_line(row.get('name') or '', 60)})"


def _gradebook_matches(student: str, info: dict, gradebook: dict[str, dict]) -> list[dict]:
    """The Canvas rows a record of another platform joins, on keys both sides hold."""
    platform = info.get("lms")
    if platform == "gradescope":
        sid, email = info.get("sid") or "", (info.get("email") or "").casefold()
        return [
            row
            for row in gradebook.values()
            if (sid and sid in (row.get("sis_user_id"), row.get("sis_login_id")))
            or (email and email == (row.get("sis_login_id") or "").casefold())
        ]
    if platform in ("plain", "folder"):
        # The file or folder name the instructor's download gave this student, against their SIS ids.
        return [row for row in gradebook.values() if student in (row.get("sis_user_id"), row.get("sis_login_id"))]
    return []  # Moodle's participant ids, and anything else, name nobody in Canvas


def identities(
    results: list[SubmissionResult], roster: dict[str, dict], gradebook: dict[str, dict] | None = None
) -> tuple[dict[str, dict], dict[str, str]]:
    """(student -> their Canvas row: name, user_id, SIS ids, section; student -> why they have none).

    ``roster`` is the intake's (student -> what their platform said, ``lms`` naming it), ``gradebook`` a
    Canvas gradebook export (Canvas user id -> row). A record the roster does not describe (records
    written without an intake) keeps its key as the instructor gave it: a Canvas user id when it is
    one."""
    return student_identities([result.student for result in results], roster, gradebook)


def student_identities(
    students: list[str], roster: dict[str, dict], gradebook: dict[str, dict] | None = None
) -> tuple[dict[str, dict], dict[str, str]]:
    """``identities`` of the student keys ``students`` (``course written`` has no records yet)."""
    gradebook = gradebook or {}
    found: dict[str, list[dict]] = {}
    for student in students:
        info = roster.get(student)
        if info is None:
            # No platform's record (results written without an intake): the key is taken as given, as it
            # always was; a row without an ID when it is not a Canvas user id.
            own = gradebook.get(student) or {"name": student, "user_id": student if student.isdigit() else ""}
            found[student] = [own]
        elif info.get("lms", "canvas") == "canvas":
            # Canvas's own record (its download's file name, or its gradebook's row): its user id is Canvas's.
            user_id = info.get("user_id") or ""
            row = gradebook.get(user_id) or {**info, "name": info.get("name") or student}
            found[student] = [row] if user_id else []
        else:
            found[student] = _gradebook_matches(student, info, gradebook)
    placed: dict[str, dict] = {}
    refused: dict[str, str] = {}
    for student, rows in found.items():
        ids = {row["user_id"] for row in rows if row["user_id"]} or {row["user_id"] for row in rows}
        if not ids:
            platform = (roster.get(student) or {}).get("lms", "")
            refused[student] = (
                f"{_who(student, roster.get(student))} has no Canvas identity"
                + (f" (a {platform} record; its key is not Canvas's)" if platform and platform != "canvas" else "")
                + "; left out of the Canvas CSV (give a Canvas gradebook export as --roster to place it)"
            )
        elif len(ids) > 1:
            both = ", ".join(_row_text(row) for row in sorted(rows, key=lambda r: r["user_id"]))
            refused[student] = (
                f"{_who(student, roster.get(student))} matches several Canvas students ({both}); left out of the "
                "Canvas CSV"
            )
        else:
            placed[student] = rows[0]
    sharing: dict[str, list[str]] = {}
    for student, row in placed.items():
        if row["user_id"]:
            sharing.setdefault(row["user_id"], []).append(student)
    for students in sharing.values():
        if len(students) < 2:
            continue
        names = ", ".join(_who(s, roster.get(s)) for s in sorted(students))
        for student in students:
            refused[student] = (
                f"{_row_text(placed[student])} is claimed by {len(students)} records ({names}); none of them is in "
                "the Canvas CSV"
            )
        for student in students:
            del placed[student]
    return placed, refused


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
    if score.pending and ungraded != "partial":
        return ""  # withheld: Canvas keeps what it has until the written answers are graded
    return "EX" if score.excused else points_text(score.points)


def pending_line(results: list[SubmissionResult], opts: CanvasOptions) -> str | None:
    """What the export says about written answers no grader has graded yet among ``results`` (the
    records in the CSV), or None when there are none."""
    scores = [reported_score(r) for r in results]
    answers, students = sum(s.pending for s in scores), sum(1 for s in scores if s.pending)
    if not answers:
        return None
    waiting = f"{answers} written answer(s) of {students} student(s) are not graded yet"
    if opts.ungraded_written == "partial":
        return (
            f'canvas: {waiting}; as asked (ungraded_written = "partial"), their {opts.target.column!r} totals '
            "are partial: those answers count nothing until they are graded"
        )
    return (
        f"canvas: {waiting}; those students' {opts.target.column!r} cells are left empty (Canvas keeps what it "
        "has) until every written answer of theirs is graded. Grade them in formgrader and export again, or "
        "pass --ungraded-written partial to post partial totals"
    )


def _question_cell(result: SubmissionResult, grade_id: str) -> str:
    try:
        question = result.question(grade_id)
    except KeyError:
        return ""
    if question.excused:
        return "EX"  # Canvas' own mark for an excused grade
    return "" if question.points is None else points_text(question.points)


def rows(
    results: list[SubmissionResult],
    opts: CanvasOptions,
    roster: dict[str, dict] | None = None,
    points_possible: bool = True,
    gradebook: dict[str, dict] | None = None,
) -> list[list[str]]:
    """The CSV's rows: one per record with exactly one Canvas identity (``identities``); the others are not
    written (``write_canvas_csv`` says why, one line each)."""
    placed, _ = identities(results, roster or {}, gradebook)
    per_question = _question_columns(results, opts.target) if opts.per_question and results else []
    total_max = assignment_points(results, opts)
    table = [IDENTITY + [opts.target.column] + [title for title, _, _ in per_question]]
    if points_possible:
        table.append(
            ["Points Possible", "", "", "", "", points_text(total_max)]
            + [points_text(maximum) for _, _, maximum in per_question]
        )
    for result in sorted(results, key=lambda r: r.student):
        if result.student not in placed:
            continue
        info = placed[result.student]
        table.append(
            [
                info.get("name") or info["user_id"] or result.student,
                info["user_id"],
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
    gradebook: dict[str, dict] | None = None,
) -> Path:
    """Write the import file; ``roster`` (student -> {name, user_id, lms, ...}) comes from the intake
    manifest, ``gradebook`` from a Canvas gradebook export (``read_gradebook_export``). Each record left
    out, and why, is printed on one line."""
    placed, refused = identities(results, roster or {}, gradebook)
    for _, why in sorted(refused.items()):
        print(f"canvas: {why}")
    line = pending_line([r for r in results if r.student in placed], opts)
    if line:
        print(line)
    return csv_safe.write_rows(path, rows(results, opts, roster, points_possible, gradebook))


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
