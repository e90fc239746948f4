"""No grade before it is true (issue #45 item 4): a written answer no grader has graded yet is pending in
every export, never a 0 inside a total.

Before, with the default ``ungraded_written = "zero"``, a student with every autograded point and a
written answer still waiting for a TA went to Canvas at 5 of 8 (62.5%), as if the written answer had
earned nothing. Now the default withholds that student's Canvas cell (Canvas keeps what it has) and says
how many answers are pending; the feedback says "pending" instead of a score, nbgrader's CSV leaves the
score empty and counts the pending answers, the class report counts them per question, and Gradescope's
results (autograded questions only) do not change. Partial totals come only when the instructor asks.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from assignments.course import default
from assignments.exports import canvas, nbgrader_gradebook
from assignments.runs import store
from assignments.runs.folder import Run
from assignments.workflow import export
from tests.exports.test_exports import grade_by_hand, record, toy_course

TOY = canvas.CanvasAssignment("Toy", "9")


def toy_record(student: str):
    """Every autograded point (3 + 2 of 8) and the 3-point written answer left to a grader."""
    result = record(student, padded_ok=True)
    result.assignment = "toy"
    return result


def canvas_cells(path: Path) -> dict[str, str]:
    with open(path, newline="", encoding="utf-8") as handle:
        return {row["ID"]: row[TOY.column] for row in csv.DictReader(handle) if row["ID"]}


def test_a_written_answer_no_grader_has_graded_is_pending_in_every_export(tmp_path, capsys):
    root = tmp_path / "course"
    db = toy_course(root)
    graded = [toy_record("111"), toy_record("222")]
    nbgrader_gradebook.write_gradebook(graded, "toy", db)
    grade_by_hand(db, "222", "attention_written", 3.0, "Complete.")  # 111's answer waits for a grader
    run = tmp_path / "run"
    for result in graded:
        store.save_result(result, run / "results")
    submissions = [
        {"student": s, "path": None, "original_name": "t.ipynb", "name": s, "lms": "canvas", "user_id": s}
        for s in ("111", "222")
    ]
    manifest = {"assignment": "toy", "source": "x.zip", "findings": [], "missing": [], "submissions": submissions}
    (run / "intake.json").write_text(json.dumps(manifest), encoding="utf-8")
    out = tmp_path / "exports"
    this_run = Run(run, exports=out, course=root)

    export(this_run, default().assignment("toy"), db_url=db, canvas_options=canvas.CanvasOptions(TOY))
    printed = capsys.readouterr().out

    assert canvas_cells(out / "canvas" / "toy_canvas.csv") == {"111": "", "222": "8"}, (
        "111's total is withheld until the written answer is graded; 222's is complete"
    )
    assert "1 written answer(s) of 1 student(s) are not graded yet" in printed, printed
    feedback = (out / "feedback" / "111.md").read_text(encoding="utf-8")
    assert "Score: pending: 1 written answer (3 points) not graded yet" in feedback
    assert "Score: 5 / 8" not in feedback and "0 / 3" not in feedback
    assert "Score: 8 / 8" in (out / "feedback" / "222.md").read_text(encoding="utf-8")
    with open(out / "nbgrader" / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert (rows["111"]["score"], rows["111"]["raw_score"], rows["111"]["written_pending"]) == ("", "", "1"), (
        "nbgrader's CSV would count the pending answer 0"
    )
    assert float(rows["222"]["score"]) == 8.0 and rows["222"]["written_pending"] == "0"
    summary = (out / "report" / "summary.md").read_text(encoding="utf-8")
    assert "1 written answer not graded yet (" in summary and "no total of a student with a pending answer" in summary
    gradescope = json.loads((out / "gradescope-preview" / "111.json").read_text(encoding="utf-8"))
    assert gradescope["score"] == 5.0, "Gradescope's results hold the autograded questions only"

    # Partial totals, asked for: posted, and said to be partial.
    export(
        this_run,
        default().assignment("toy"),
        ("canvas",),
        canvas_options=canvas.CanvasOptions(TOY, ungraded_written="partial"),
    )
    printed = capsys.readouterr().out
    assert canvas_cells(out / "canvas" / "toy_canvas.csv") == {"111": "5", "222": "8"}
    assert 'as asked (ungraded_written = "partial")' in printed and "are partial" in printed, printed


def test_a_rejected_record_has_nothing_pending(capsys):
    """A notebook that could not be read has no answer for a grader to see: its written questions count 0
    with its autograded ones, so the student is not withheld for ever."""
    from assignments.exports import adjust, feedback

    rejected = record("333", status="rejected")
    score = adjust.reported_score(rejected)
    assert score.pending == 0 and score.points == 0.0
    assert canvas.rows([rejected], canvas.CanvasOptions(TOY), points_possible=False)[1][-1] == "0"
    assert "no answer could be read from the notebook" in feedback.feedback_markdown(rejected)
