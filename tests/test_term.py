"""An instructor's term, end to end, on the quickest real assignment (issue 24, "Done when").

The committed release (kept equal to a fresh ``course release`` by the drift test) → a Canvas bulk
download of three students (one late, one with a mistake) → ``course grade`` into this term's run folder
→ a TA's hand grade in that run's gradebook (formgrader's field) → the demo class graded into its own
folder → a regrade of the student who fixed the mistake → export with the configured Canvas assignment,
a late policy and an excused question. The Canvas CSV must then hold exactly the class's students, the
totals worked out by hand below, and one grade column titled as Canvas titles the assignment; the
demo's run changed nothing of the class's, and the regrade changed only that student.
"""

from __future__ import annotations

import csv
import hashlib
import resource
import zipfile
from pathlib import Path

import nbformat
import pytest

from assignments import notebooks, workflow
from assignments.cli import main as course
from assignments.course import resolve
from assignments.demo.students import demo_class, filled_release, write_canvas_zip
from assignments.exports import adjust, canvas, nbgrader_gradebook, text
from assignments.grading.selftest import checks as selftest
from assignments.run_folder import Run
from assignments.workflow import grade_class
from tests.helpers import QUICKEST

pytestmark = pytest.mark.course

A = QUICKEST
HAND_GRADED = "mask_and_position_written"
EXCUSED = "causal_vs_mlm_written"
CANVAS = canvas.CanvasAssignment("Transfer learning lab", "5150")


def canvas_zip(path: Path, students: dict[str, tuple[str, object]]) -> Path:
    """Canvas' bulk download: ``login[_LATE]_userid_submissionid_<notebook>`` per student."""
    original = resolve(A).source_path.name
    with zipfile.ZipFile(path, "w") as archive:
        for login, (user_id, nb) in students.items():
            archive.writestr(f"{login}_{user_id}_{int(user_id) + 50000}_{original}", nbformat.writes(nb))
    return path


def mistake():
    mutant = next(m for m in selftest.mutants(A) if m.question == "square_mask_tests")
    typed = notebooks.student_text(nbformat.v4.new_code_cell(mutant.code))  # as a student types it
    return mutant, filled_release(A, {mutant.replaces: typed})


def digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def canvas_rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def export(run: Path) -> Path:
    written = workflow.export(
        Run.at(run),
        A,
        ("canvas", "feedback"),
        canvas_options=canvas.CanvasOptions(CANVAS),
        excused=[EXCUSED],
        late_policy=adjust.LatePolicy(per_day=10, cap=50),
    )
    return written["canvas"][0]


def test_a_term_from_the_class_zip_to_the_canvas_gradebook(tmp_path):
    cpu = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    run = tmp_path / "term" / A
    mutant, buggy = mistake()
    class_zip = canvas_zip(
        tmp_path / "class.zip",
        {
            "lovelaceada": ("1001", filled_release(A)),
            "babbagebob_LATE": ("1002", buggy),
            "hoppergrace": ("1003", resolve(A).release_notebook()),
        },
    )
    assert course(["grade", A, str(class_zip), "--out", str(run), "--workers", "2"]) == 0

    # The TA grades one written answer of Ada's in formgrader (the run's own gradebook).
    db = Run.at(run).db_url
    with nbgrader_gradebook.open_gradebook(db) as gb:
        grade = gb.find_grade(HAND_GRADED, A, A, "1001")
        grade.manual_score = 1.5
        gb.db.commit()
    first = canvas_rows(export(run))

    # The demo, in its own folder, in between: nothing of the class's run may change. One demo student
    # shows it, and the blank release is the quickest to grade (its answers raise at once).
    before = digest(run)
    demo = {name: nb for name, nb in demo_class(A, buggy=1).items() if name == "blank"}
    write_canvas_zip(A, demo, tmp_path / "demo.zip")
    grade_class(A, tmp_path / "demo.zip", tmp_path / "demo" / A, workers=2)
    assert digest(run) == before, "grading the demo changed the class's run"

    # Bob fixes his mistake and is regraded alone, into the same run.
    fixed = canvas_zip(tmp_path / "bob.zip", {"babbagebob_LATE": ("1002", filled_release(A))})
    assert course(["grade", A, str(fixed), "--out", str(run), "--workers", "1"]) == 0
    path = export(run)
    rows = canvas_rows(path)

    header = list(rows[0])
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Transfer learning lab (5150)"]
    # The assignment's points come from its notebook (they change when a question is added). Canvas keeps
    # its assignment's points possible (every question's), so the total is the share of the points left
    # after the excused written question, scaled to them, less 10% of them per started day late. Ada earns
    # every autograded point and 1.5 by hand; Bob, one day late, every autograded point once fixed; Grace
    # hands in the blank release.
    hw = resolve(A)
    excused = next(q.points for q in hw.questions if q.grade_id == EXCUSED)
    possible = hw.total_points
    kept = hw.total_points - excused
    auto = sum(q.points for q in hw.questions if q.kind == "autograded")
    shown = text.points
    assert rows[0]["Student"] == "Points Possible" and rows[0][CANVAS.column] == shown(possible), (
        f"Canvas' own points possible: every question's {hw.total_points:g}"
    )
    students = {row["ID"]: row for row in rows[1:]}
    assert sorted(students) == ["1001", "1002", "1003"], "exactly the class: no demo student, nobody twice"
    assert {row["Student"] for row in rows[1:]} == {"lovelaceada", "babbagebob", "hoppergrace"}, (
        "the regrade must keep every other student's name"
    )
    bob = round(possible * auto / kept - possible * 0.10, 4)
    assert {uid: row[CANVAS.column] for uid, row in students.items()} == {
        "1001": shown(round(possible * (auto + 1.5) / kept, 4)),
        "1002": shown(bob),
        "1003": "0",
    }
    before_regrade = {row["ID"]: row for row in first[1:]}
    assert before_regrade["1002"][CANVAS.column] != shown(bob), f"{mutant.name} should have cost Bob points first"
    assert before_regrade["1001"] == students["1001"] and before_regrade["1003"] == students["1003"], (
        "the regrade changed another student's row"
    )
    feedback = (run / "exports" / "feedback" / "1002.md").read_text(encoding="utf-8")
    # The feedback reports the points left after excusing, and the penalty on them.
    assert (
        "babbagebob (1002)" in feedback
        and f"Late penalty: −{shown(round(kept * 0.10, 4))} points (1 day(s)" in feedback
    )
    assert "excused" in (run / "exports" / "feedback" / "1001.md").read_text(encoding="utf-8")

    spent = sum(
        after.ru_utime + after.ru_stime - start.ru_utime - start.ru_stime
        for start, after in zip(
            cpu, (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
        )
    )
    print(f"term test: {spent:.0f} CPU seconds")
