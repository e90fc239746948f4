"""Every export gives a student the same percentage (issue 33 item 4, issue 32 item 6).

Canvas, Gradescope's results.json, nbgrader's CSV and the feedback each report their own points possible
(Canvas: the assignment's, every question; Gradescope: the autograded points; nbgrader: the gradebook's
max_score; the feedback: what is left after excusing), and all of them take the score from one arithmetic
(``exports/adjust.py``, ``reported_score``). A perfect student with an excused question keeps 100%
everywhere; a perfect student a started day late at 10% per day keeps 90% everywhere (before, Gradescope
took 10% of all 8 points from the 5 it grades: 84%); a group submission counts each member's own due date.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from assignments.course import REPO, default
from assignments.exports import adjust, canvas, feedback, gradescope, nbgrader_gradebook
from assignments.platforms.gradescope import runner as gradescope_runner
from assignments.runs import store
from assignments.runs.folder import Run
from assignments.workflow import export
from tests.exports.test_exports import grade_by_hand, record, toy_course

# One worker runs this module (`--dist loadgroup`): its module fixture (an nbgrader gradebook and export, about
# 10 s of CPU) ran once on each worker that got one of its tests.
pytestmark = pytest.mark.xdist_group("grades_add_up")

TOY = canvas.CanvasAssignment("toy", "9")
TEN_PERCENT = adjust.LatePolicy(per_day=10)


def perfect(student: str):
    """Full marks on the toy record: 3 + 2 autograded points and the 3-point written answer."""
    result = record(student, padded_ok=True)
    result.assignment = "toy"
    result.questions[2].points = 3.0
    return result


def canvas_percent(path: Path) -> dict[str, float]:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    possible = float(rows[0][TOY.column])  # the "Points Possible" row: Canvas' own points possible
    return {row["ID"] or row["Student"]: float(row[TOY.column]) / possible for row in rows[1:]}


def gradescope_percent(path: Path) -> float:
    """Gradescope's score against the autograded points its outline holds (every test's max_score)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["score"] / sum(test["max_score"] for test in data["tests"])


def nbgrader_percent(path: Path) -> dict[str, float]:
    with open(path, newline="", encoding="utf-8") as handle:
        return {row["student_id"]: float(row["score"]) / float(row["max_score"]) for row in csv.DictReader(handle)}


def feedback_percent(path: Path) -> float:
    found = re.search(r"Score: ([\d.]+) / ([\d.]+)", path.read_text(encoding="utf-8"))
    return float(found[1]) / float(found[2])


def percentages(out: Path, students) -> dict[str, dict[str, float]]:
    """student -> export -> the percentage that export gives them (as a fraction)."""
    on_canvas = canvas_percent(out / "canvas" / "toy_canvas.csv")
    on_nbgrader = nbgrader_percent(out / "nbgrader" / "grades.csv")
    return {
        student: {
            "canvas": on_canvas[student],
            "gradescope": gradescope_percent(out / "gradescope-preview" / f"{student}.json"),
            "nbgrader": on_nbgrader[student],
            "feedback": feedback_percent(out / "feedback" / f"{student}.md"),
        }
        for student in students
    }


GROUP = "ada@uni.edu"  # a Gradescope group submission's record is keyed by its first member


@pytest.fixture(scope="module")
def class_export(tmp_path_factory) -> Path:
    """One export of a toy class through ``course export``'s function, every format: 111 perfect with MHA
    excused for them, 222 perfect and late (Canvas' flag: one started day), the group's record on time
    (its lateness comes from Gradescope, below). Hand grades come from the gradebook, as formgrader saves
    them. One nbgrader gradebook and one ``nbgrader export`` serve the whole module (each costs seconds)."""
    tmp_path = tmp_path_factory.mktemp("class")
    root = tmp_path / "course"
    db = toy_course(root)
    graded = [perfect("111"), perfect("222"), perfect(GROUP)]
    for result in graded:  # the grader leaves written answers to people
        result.questions[2].points = None
    nbgrader_gradebook.write_gradebook(graded, "toy", db)
    run = tmp_path / "run"
    for result in graded:
        grade_by_hand(db, result.student, "attention_written", 3.0, "")
        store.save_result(result, run / "results")
    submissions = [
        {"student": s, "path": None, "original_name": "t.ipynb", "name": s, "lms": "canvas", "user_id": s, "late": late}
        for s, late in (("111", False), ("222", True), (GROUP, False))
    ]
    (run / "intake.json").write_text(
        json.dumps({"assignment": "toy", "source": "x.zip", "findings": [], "missing": [], "submissions": submissions}),
        encoding="utf-8",
    )
    out = tmp_path / "exports"
    export(
        Run(run, exports=out, course=root),
        default().assignment("toy"),
        ("gradescope-preview", "canvas", "nbgrader", "feedback"),
        db_url=db,
        canvas_options=canvas.CanvasOptions(TOY, late_policy="course"),
        excused=["111:mha_tests"],
        late_policy=TEN_PERCENT,
    )
    return out


def test_an_excused_question_and_a_late_day_give_one_percentage_in_every_export(class_export):
    shown = percentages(class_export, ["111", "222"])
    expected = {"111": 1.0, "222": 0.9}  # perfect with MHA excused; perfect and one started day late at 10%
    for student, per_export in shown.items():
        wrong = {name: value for name, value in per_export.items() if value != pytest.approx(expected[student])}
        assert not wrong, f"{student} should get {expected[student]:.0%} in every export; these differ: {wrong}"


def metadata(path: Path, members: list[tuple[str, timedelta | None]]) -> Path:
    """Gradescope's submission_metadata.json for a group submitted 30 hours after the assignment's due
    date; each member (email, their own extension or None) in the order given."""
    due = datetime(2026, 11, 1, 12, tzinfo=timezone.utc)
    users = []
    for email, extension in members:
        user = {"email": email, "id": len(users) + 1, "name": email.split("@")[0]}
        if extension is not None:
            user["assignment"] = {"due_date": (due + extension).isoformat()}
        users.append(user)
    data = {
        "id": 1,
        "created_at": (due + timedelta(hours=30)).isoformat(),
        "assignment": {"due_date": due.isoformat(), "group_submission": True, "late_due_date": None},
        "users": users,
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_group_counts_each_members_own_extension_whatever_the_order_of_members(tmp_path, class_export):
    """The group submission is 30 h past the assignment's due date; Bea's extension of one day leaves
    her 6 h late. The group counts its least late member (one started day, not two), in either order."""
    members = [("ada@uni.edu", None), ("bea@uni.edu", timedelta(days=1))]
    first = gradescope_runner.submission_facts(metadata(tmp_path / "a.json", members))
    reversed_order = gradescope_runner.submission_facts(metadata(tmp_path / "b.json", members[::-1]))
    assert first["hours_late"] == reversed_order["hours_late"] == pytest.approx(6.0), (
        f"the group should be 6 h late (Bea's own due date) whatever the order; got {first} and {reversed_order}"
    )
    assert first["members_hours_late"] == {"ada@uni.edu": pytest.approx(30.0), "bea@uni.edu": pytest.approx(6.0)}
    covered = [("ada@uni.edu", None), ("bea@uni.edu", timedelta(days=2))]
    assert gradescope_runner.submission_facts(metadata(tmp_path / "c.json", covered))["hours_late"] == 0.0, (
        "an extension that covers the submission makes the group on time"
    )

    # The group's one record, through every export, with the course's 10% per started day (nbgrader's
    # CSV: the class's, its scores worked out again from the group's record).
    group = perfect(GROUP)
    adjusted = adjust.apply([group], {group.student: first}, TEN_PERCENT)
    assert "least late member" in adjusted[0].late_note, "the feedback says how the group's lateness was counted"
    out = tmp_path / "exports"
    gradescope.write_all(adjusted, out / "gradescope-preview")
    canvas.write_canvas_csv(adjusted, out / "canvas" / "toy_canvas.csv", canvas.CanvasOptions(TOY))
    feedback.write_feedback(adjusted, out / "feedback")
    (out / "nbgrader").mkdir()
    nb_csv = out / "nbgrader" / "grades.csv"
    shutil.copyfile(class_export / "nbgrader" / "grades.csv", nb_csv)
    nbgrader_gradebook.report_scores(nb_csv, adjusted, "toy")
    shown = percentages(out, [group.student])[group.student]
    assert all(value == pytest.approx(0.9) for value in shown.values()), (
        f"one started day late at 10% should leave the group 90% in every export; got {shown}"
    )


def test_the_gradescope_runner_tells_staff_each_members_lateness(tmp_path, capsys):
    submission = tmp_path / "submission"
    submission.mkdir()
    (submission / "transformers.ipynb").write_bytes(
        next((REPO / "source" / "transformers").glob("*.ipynb")).read_bytes()
    )
    meta = metadata(tmp_path / "submission_metadata.json", [("ada@uni.edu", None), ("bea@uni.edu", timedelta(days=1))])

    def fake_grade(assignment, path, student):
        graded = record(student, padded_ok=True)
        # a clean grading: a suite problem is the grader's failure, which writes no results (test_entry_points)
        graded.findings = [f for f in graded.findings if f.code != "suite-problem"]
        return graded

    gradescope_runner.run(
        default().assignment("transformers"), submission, tmp_path / "results.json", meta, grade=fake_grade
    )
    printed = capsys.readouterr().out
    assert "group member ada@uni.edu: 30.0 h late" in printed and "group member bea@uni.edu: 6.0 h late" in printed
