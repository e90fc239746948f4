"""An instructor's term, end to end, on the toy course (issue 24, "Done when"; issue 36: engine tests that
need a question use the toy).

The toy's release (``fixtures/toy.py``, with a second written question so that one is graded by hand and
the other excused) → a Canvas bulk download of three students (one late, one with a mistake: the toy's
``subtracts`` mutant) → graded into this term's run folder → a TA's hand grade in that run's gradebook
(formgrader's field) → the demo class graded into its own folder → a regrade of the student who fixed the
mistake → export with the configured Canvas assignment, a late policy and an excused question. The Canvas
CSV must then hold exactly the class's students, the totals worked out below, and one grade column titled
as Canvas titles the assignment; the demo's run changed nothing of the class's, and the regrade changed
only that student.

``course grade`` resolves an assignment's name in this repository's course only, so the test calls what
the command forwards to: ``workflow.grade_class`` then ``workflow.export_all`` (``grade`` below).
"""

from __future__ import annotations

import csv
import hashlib
import resource
import zipfile
from pathlib import Path

import nbformat

from assignments import notebooks, workflow
from assignments.demo.students import demo_class, filled_release, write_canvas_zip
from assignments.exports import adjust, canvas, nbgrader_gradebook
from assignments.grading.selftest import mutation
from assignments.points import points_text
from assignments.runs.folder import Run
from assignments.workflow import export_all, grade_class
from tests.fixtures import toy

HAND_GRADED = toy.SECOND_WRITTEN  # 2 points
EXCUSED = "scale_written"  # 1 point
CANVAS = canvas.CanvasAssignment("Toy lab", "5150")


def canvas_zip(path: Path, a, students: dict[str, tuple[str, object]]) -> Path:
    """Canvas' bulk download: ``login[_LATE]_userid_submissionid_<notebook>`` per student."""
    original = a.source_path.name
    with zipfile.ZipFile(path, "w") as archive:
        for login, (user_id, nb) in students.items():
            archive.writestr(f"{login}_{user_id}_{int(user_id) + 50000}_{original}", nbformat.writes(nb))
    return path


def grade(a, submissions: Path, run: Path, workers: int) -> None:
    """What ``course grade <assignment> <submissions> --out <run>`` does."""
    grade_class(a, submissions, Run.at(run), workers=workers)
    export_all(a, Run.at(run))


def mistake(a):
    mutant = next(m for m in mutation.mutants(a) if m.question == "add_tests")
    typed = notebooks.student_text(nbformat.v4.new_code_cell(mutant.code))  # as a student types it
    return mutant, filled_release(a, {mutant.replaces: typed})


def digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def canvas_rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def export(run: Path, a) -> Path:
    written = workflow.export(
        Run.at(run),
        a,
        ("canvas", "feedback"),
        # Partial totals, asked for: Bob's and Grace's written answers wait for a grader all term.
        canvas_options=canvas.CanvasOptions(CANVAS, ungraded_written="partial"),
        excused=[EXCUSED],
        late_policy=adjust.LatePolicy(per_day=10, cap=50),
    )
    return written["canvas"][0]


def test_a_term_from_the_class_zip_to_the_canvas_gradebook(tmp_path):
    cpu = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    the_toy = toy.build(tmp_path / "course", mutants=toy.MUTANTS, second_written=True)
    # grader_version hashes the course's pyproject.toml with its grading files
    (the_toy.folder / "pyproject.toml").write_text('[project]\nname = "toy"\nversion = "1.0"\n')
    a = the_toy.assignment
    run = tmp_path / "term" / a.name
    mutant, buggy = mistake(a)
    class_zip = canvas_zip(
        tmp_path / "class.zip",
        a,
        {
            "lovelaceada": ("1001", filled_release(a)),
            "babbagebob_LATE": ("1002", buggy),
            "hoppergrace": ("1003", the_toy.release),
        },
    )
    grade(a, class_zip, run, workers=2)

    # The TA grades one written answer of Ada's in formgrader (the run's own gradebook).
    db = Run.at(run).db_url
    with nbgrader_gradebook.open_gradebook(db) as gb:
        hand = gb.find_grade(HAND_GRADED, a.source_path.stem, a.name, "1001")
        hand.manual_score = 1.5
        gb.db.commit()
    first = canvas_rows(export(run, a))

    # The demo, in its own folder, in between: nothing of the class's run may change. One demo student
    # shows it, and the blank release is the quickest to grade (its answers raise at once).
    before = digest(run)
    demo = {name: nb for name, nb in demo_class(a, buggy=1).items() if name == "blank"}
    write_canvas_zip(a, demo, tmp_path / "demo.zip")
    grade_class(a, tmp_path / "demo.zip", tmp_path / "demo" / a.name, workers=1)
    assert digest(run) == before, "grading the demo changed the class's run"

    # Bob fixes his mistake and is regraded alone, into the same run.
    fixed = canvas_zip(tmp_path / "bob.zip", a, {"babbagebob_LATE": ("1002", filled_release(a))})
    grade(a, fixed, run, workers=1)
    path = export(run, a)
    rows = canvas_rows(path)

    header = list(rows[0])
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Toy lab (5150)"]
    # The assignment's points come from its notebook (they change when a question is added). Canvas keeps
    # its assignment's points possible (every question's), so the total is the share of the points left
    # after the excused written question, scaled to them, less 10% of them per started day late. Ada earns
    # every autograded point and 1.5 by hand; Bob, one day late, every autograded point once fixed; Grace
    # hands in the blank release.
    excused = next(q.points for q in a.questions if q.grade_id == EXCUSED)
    possible = a.total_points
    kept = a.total_points - excused
    auto = sum(q.points for q in a.questions if q.kind == "autograded")
    shown = points_text
    assert rows[0]["Student"] == "Points Possible" and rows[0][CANVAS.column] == shown(possible), (
        f"Canvas' own points possible: every question's {a.total_points:g}"
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
