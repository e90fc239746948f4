"""The Canvas CSV against the way Canvas' gradebook importer reads it, the late policy and excused questions.

``canvas_import`` below does what Canvas' importer does with an uploaded CSV (its documented behaviour,
written here in our own code): the header row names the columns; Student, ID, SIS User ID, SIS Login ID,
Section (and Canvas' read-only score columns) identify or describe the student; every other column is an
assignment, matched to an existing one by the id in ``Name (id)``, else it becomes a new assignment; a
first data row whose Student is ``Points Possible`` is skipped; each row is matched to a student by ID,
then SIS User ID, then SIS Login ID; an empty cell leaves a grade unchanged; "EX" excuses. The course is a
Canvas gradebook export (what an instructor downloads from Grades > Export), which also serves as the
roster. Sources: instructure/canvas-lms, app/models/gradebook_importer.rb (``check_for_non_student_row``
reads the "Points Possible" row into the columns' assignments, ``no_change_to_value?`` compares "EX"),
and the upload's front end (``ProcessGradebookUpload``), which sends points possible only when it
creates an assignment, so an existing assignment keeps its own. Canvas' Late Policy: Canvas Guides, "How
do I apply a Late Submission policy in the Gradebook?" (``canvas_late_policy`` below).
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import pytest

from assignments.course import default
from assignments.exports import adjust, canvas
from assignments.runs import store
from assignments.runs.folder import Run
from assignments.settings import Settings
from assignments.workflow import export
from tests.exports.test_exports import record

IDENTITY = {"Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Integration ID", "Root Account"}
READ_ONLY = re.compile(r"^(Current|Final|Unposted Current|Unposted Final) (Score|Points|Grade)$")
ASSIGNMENT = re.compile(r"^(?P<name>.*) \((?P<id>\d+)\)$")

# A Canvas gradebook export: two existing assignments, three students (one without a submission).
GRADEBOOK_EXPORT = """Student,ID,SIS User ID,SIS Login ID,Section,Homework 1 (4821),Quiz 1 (4822),Current Score
    Points Possible,,,,,8,10,(read only)
"Doe, Jane",111,s111,jdoe,Section A,,7,70
Jane Roe,222,s222,jroe,Section B,,9,90
Sam Poe,444,s444,spoe,Section A,,10,100
"""


def canvas_import(csv_text: str, gradebook_export: str) -> dict:
    """What Canvas would do with ``csv_text`` in the course of ``gradebook_export``: the grades it sets
    (user id -> assignment id -> text), the assignments it would create, and rows it matched to nobody."""
    course = list(csv.reader(gradebook_export.splitlines()))
    existing = {m["id"] for m in map(ASSIGNMENT.match, course[0]) if m}
    students = {row[1]: row for row in course[1:] if row and row[1].isdigit()}
    by_sis = {row[2]: uid for uid, row in students.items()}
    by_login = {row[3]: uid for uid, row in students.items()}
    table = list(csv.reader(csv_text.splitlines()))
    header = table[0]
    assert {"Student", "ID"} <= set(header), "Canvas refuses a CSV without Student and ID columns"
    columns, created = {}, []
    for index, title in enumerate(header):
        if title in IDENTITY or READ_ONLY.match(title):
            continue
        match = ASSIGNMENT.match(title)
        if match and match["id"] in existing:
            columns[index] = match["id"]
        else:
            created.append(title)
    rows = table[1:]
    if rows and rows[0] and rows[0][0].strip() == "Points Possible":
        rows = rows[1:]
    field = {name: header.index(name) for name in ("ID", "SIS User ID", "SIS Login ID") if name in header}
    grades, unmatched = {}, []
    for row in rows:
        uid = (
            row[field["ID"]]
            if row[field["ID"]] in students
            else by_sis.get(row[field.get("SIS User ID", 0)]) or by_login.get(row[field.get("SIS Login ID", 0)])
        )
        if uid is None:
            unmatched.append(row[0])
            continue
        grades[uid] = {aid: row[index] for index, aid in columns.items() if row[index] != ""}
    return {"grades": grades, "created": created, "unmatched": unmatched}


@pytest.fixture
def run(tmp_path) -> Path:
    """A run folder with three graded records (keys are Canvas user ids, as intake makes them)."""
    results = [record("111"), record("222", padded_ok=True), record("333", status="rejected")]
    results[1].questions[2].points = 2.5  # a hand grade
    for result in results:
        store.save_result(result, tmp_path / "run" / "results")
    (tmp_path / "export.csv").write_text(GRADEBOOK_EXPORT, encoding="utf-8")
    return tmp_path / "run"


def export_canvas(run: Path, roster: Path, **choices) -> str:
    """The Canvas CSV of ``run``, with the course's late policy at 10% per started day."""
    opts = canvas.CanvasOptions(canvas.CanvasAssignment("Homework 1", "4821"), **choices)
    written = export(
        Run(run),
        default().assignment("transformers"),
        ("canvas",),
        roster=roster,
        canvas_options=opts,
        late_policy=adjust.LatePolicy(per_day=10),
    )
    return written["canvas"][0].read_text(encoding="utf-8")


def test_canvas_imports_the_total_into_the_existing_assignment_and_nothing_else(run):
    text = export_canvas(run, run.parent / "export.csv", ungraded_written="partial")
    imported = canvas_import(text, GRADEBOOK_EXPORT)
    assert imported["created"] == [], "Canvas would create new assignments"
    # 111: 1 + 2 autograded, written not graded (a partial total, asked for); 222: 5 + 2.5; 333 (rejected)
    # is no Canvas student.
    assert imported["grades"] == {"111": {"4821": "3"}, "222": {"4821": "7.5"}}
    assert imported["unmatched"] == ["333"]
    rows = list(csv.DictReader(text.splitlines()))
    assert rows[0]["Student"] == "Points Possible" and rows[0]["Homework 1 (4821)"] == "8"
    assert rows[1]["Student"] == "Doe, Jane" and rows[1]["SIS Login ID"] == "jdoe" and rows[1]["Section"] == "Section A"


def test_a_student_with_ungraded_written_answers_keeps_what_canvas_has_by_default(run):
    imported = canvas_import(export_canvas(run, run.parent / "export.csv"), GRADEBOOK_EXPORT)
    assert imported["grades"] == {"111": {}, "222": {"4821": "7.5"}}


def test_per_question_columns_are_new_canvas_assignments_so_only_on_request(run):
    imported = canvas_import(export_canvas(run, run.parent / "export.csv", per_question=True), GRADEBOOK_EXPORT)
    assert imported["created"] == ["Homework 1: Attention", "Homework 1: MHA", "Homework 1: Attention (written)"]


# ---------------------------------------------------------------- late policy and excused questions


def test_late_policy_takes_a_capped_share_per_started_day_after_the_grace_period():
    policy = adjust.LatePolicy.from_settings({"per_day": 10, "grace_hours": 2, "cap": 25})
    assert [policy.days_late({"hours_late": h}) for h in (0, 2, 2.5, 26, 27, 100)] == [0, 0, 1, 1, 2, 5]
    assert policy.days_late({"late": True}) == 1 and policy.days_late({}) == 0
    assert [policy.percent(d) for d in (0, 1, 2, 3)] == [0, 10, 20, 25]
    assert adjust.LatePolicy.from_settings(None).per_day == 0
    with pytest.raises(ValueError, match="per_day"):
        adjust.LatePolicy.from_settings({"per_dya": 10})


def test_penalty_and_excused_questions_change_every_total_the_same_way():
    results = [record("111", padded_ok=True), record("222", padded_ok=True)]
    results[0].questions[2].points = 3.0
    roster = {"111": {"late": True}, "222": {"hours_late": 0}}
    policy = adjust.LatePolicy(per_day=10)
    adjusted = adjust.apply(results, roster, policy, ["mha_tests", "222:attention_written"])
    late, on_time = adjusted
    assert late.late_percent == 10 and "1 day(s) late: 10% of the points off" in late.late_note
    assert adjust.reported_score(late) == adjust.Score(5.4, 6.0, 0.6, 6.0, 0), "3 + 3 of 6 (mha excused), less 10%"
    assert adjust.reported_score(on_time).points == 3.0, "only attention is left for 222, at full marks"
    assert adjust.reported_score(late, "all", 8.0) == adjust.Score(7.2, 8.0, 0.8, 8.0, 0), (
        "on Canvas' 8 points possible, a perfect student with mha excused and a day late keeps 90%"
    )
    assert results[0].late_percent == 0 and not results[0].questions[1].excused, "inputs stay as they were"
    from assignments.exports import feedback

    md = feedback.feedback_markdown(late)
    assert "## MHA: excused" in md and "Late penalty: −0.6 points (1 day(s) late" in md and "Score: 5.4 / 6" in md
    with pytest.raises(ValueError, match="not questions"):
        adjust.apply(results, roster, policy, ["no_such_question"])


def test_an_excused_question_costs_nothing_on_the_canvas_assignments_own_points_possible(run):
    """Canvas keeps an existing assignment's points possible (8 here, every question's points): a perfect
    student with a question excused must import as 8, not as the 6 points left; a student with every
    question excused imports as "EX"."""
    perfect = record("111", padded_ok=True)
    perfect.questions[2].points = 3.0
    store.save_result(perfect, run / "results")
    opts = canvas.CanvasOptions(canvas.CanvasAssignment("Homework 1", "4821"))
    excused = ["111:mha_tests", "222:attention_tests", "222:mha_tests", "222:attention_written"]
    written = export(
        Run(run),
        default().assignment("transformers"),
        ("canvas",),
        roster=run.parent / "export.csv",
        canvas_options=opts,
        excused=excused,
    )
    text = written["canvas"][0].read_text(encoding="utf-8")
    assert canvas_import(text, GRADEBOOK_EXPORT)["grades"] == {"111": {"4821": "8"}, "222": {"4821": "EX"}}
    assert list(csv.DictReader(text.splitlines()))[0]["Homework 1 (4821)"] == "8", "Canvas' own points possible"
    scaled = canvas.CanvasOptions(canvas.CanvasAssignment("Homework 1", "4821"), points_possible=100)
    written = export(
        Run(run),
        default().assignment("transformers"),
        ("canvas",),
        roster=run.parent / "export.csv",
        canvas_options=scaled,
        excused=["111:mha_tests"],
    )
    imported = canvas_import(written["canvas"][0].read_text(encoding="utf-8"), GRADEBOOK_EXPORT)
    assert imported["grades"]["111"] == {"4821": "100"}, "a Canvas assignment worth 100 gets the same 100%"
    assert imported["grades"]["222"] == {"4821": "93.75"}, "222 earned 7.5 of 8: 93.75%"


# ---------------------------------------------------------------- Canvas' own Late Policy


def canvas_late_policy(imported: str, points_possible: float, days_late: float, percent_per_day: float) -> float:
    """The grade Canvas keeps after its Late Policy, for an imported grade of a submission Canvas marks
    late (Canvas Guides, "How do I apply a Late Submission policy in the Gradebook?": the policy applies
    when a submission is graded, an imported grade included; it deducts a percentage of the assignment's
    points possible per day or hour late, the days rounded up; no lowest-grade floor here)."""
    return max(0.0, float(imported) - points_possible * percent_per_day / 100 * math.ceil(days_late))


def late_run(run: Path) -> Path:
    """The run with 111 perfect and late (Canvas' file name flag: one started day)."""
    perfect = record("111", padded_ok=True)
    perfect.questions[2].points = 3.0
    store.save_result(perfect, run / "results")
    manifest = {
        "assignment": "transformers",
        "source": "x.zip",
        "findings": [],
        "missing": [],
        "submissions": [
            {
                "student": "111",
                "path": None,
                "original_name": "t.ipynb",
                "name": "doejane",
                "lms": "canvas",
                "user_id": "111",
                "late": True,
            }
        ],
    }
    (run / "intake.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run


def test_export_warns_when_the_course_penalty_would_stack_with_canvas_late_policy(run, capsys):
    late_run(run)
    text = export_canvas(run, run.parent / "export.csv")
    printed = capsys.readouterr().out
    assert (
        "Late Policy is on" in printed and 'late_policy = "canvas"' in printed and "--canvas-late-policy" in printed
    ), f"course export must warn that Canvas' Late Policy could deduct again and say how to choose; printed:\n{printed}"
    imported = canvas_import(text, GRADEBOOK_EXPORT)["grades"]["111"]["4821"]
    assert imported == "7.2", "8 of 8, less the course's 10% for a day late"
    assert canvas_late_policy(imported, 8, 1, 10) == pytest.approx(6.4), (
        "with Canvas' 10% per day on too, the late student would lose 20%: the stacking the warning is about"
    )
    export_canvas(run, run.parent / "export.csv", late_policy="course")
    assert "Late Policy is on" not in capsys.readouterr().out, "no warning once the instructor said Canvas' is off"


def test_canvas_late_policy_choice_exports_scores_before_lateness_for_canvas_to_deduct(run, capsys):
    late_run(run)
    text = export_canvas(run, run.parent / "export.csv", late_policy="canvas")
    printed = capsys.readouterr().out
    assert "Late Policy is on" not in printed and "[tool.course.late_policy] is not applied" in printed
    imported = canvas_import(text, GRADEBOOK_EXPORT)["grades"]["111"]["4821"]
    assert imported == "8", "the CSV holds the score before lateness: Canvas deducts from its own submission times"
    assert canvas_late_policy(imported, 8, 1, 10) == pytest.approx(7.2), (
        "Canvas' own 10% per day then gives what the course's policy gives"
    )
    copy = adjust.apply([record("111")], {"111": {"late": True}}, adjust.LatePolicy(per_day=10), canvas_deducts=True)[0]
    assert copy.late_percent == 0 and "Canvas' own Late Policy" in copy.late_note, (
        "every other export leaves the deduction to Canvas too, and says so"
    )


def test_canvas_late_policy_setting_is_checked():
    assert Settings({"canvas": {"late_policy": "canvas"}}).canvas.late_policy == "canvas"
    assert Settings({}).canvas.late_policy is None
    with pytest.raises(ValueError, match="late_policy"):
        _ = Settings({"canvas": {"late_policy": "both"}}).canvas
