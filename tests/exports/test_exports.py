"""Exports from synthetic results records: Gradescope, Canvas, nbgrader gradebook, feedback, report."""

from __future__ import annotations

import csv
import json
import os
import re
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from assignments import exports
from assignments import locks as lockfile
from assignments.cli import main as course
from assignments.course import REPO, Course, default
from assignments.escaping import markdown_inline
from assignments.exports import canvas, feedback, gradescope, nbgrader_gradebook, report, text
from assignments.platforms.gradescope import bundle as gradescope_bundle
from assignments.platforms.gradescope import runner as gradescope_runner
from assignments.results.model import Finding, QuestionResult, SubmissionResult, TestResult
from assignments.runs import store
from assignments.runs.folder import Run
from assignments.settings import Settings
from assignments.workflow import export

A = "transformers"
SECRET = "expected = torch.tensor([0.1234])"  # stands for grader internals that must never reach students


def record(student: str, padded_ok: bool = False, status: str = "graded") -> SubmissionResult:
    attention = [
        TestResult("test_rows_sum_to_one", "attention_tests", 1.0, 1.0, "passed", "", 0.01),
        TestResult(
            "test_padded_keys_get_zero_attention",
            "attention_tests",
            2.0 if padded_ok else 0.0,
            2.0,
            "passed" if padded_ok else "failed",
            "" if padded_ok else "attention to padded keys must be 0; got up to 0.31 <b>",
            0.02,
        ),
    ]
    mha = [TestResult("test_output_shape[batch3]", "mha_tests", 2.0, 2.0, "passed", "", 0.01)]
    questions = [
        QuestionResult("attention_tests", "autograded", 3.0, 3.0 if padded_ok else 1.0, attention),
        QuestionResult("mha_tests", "autograded", 2.0, 2.0, mha),
        QuestionResult("attention_written", "manual", 3.0, None, []),
    ]
    findings = [
        Finding("test-cell-edited", "test cell mha_tests was edited; the grader restored it", "warning", "mha_tests"),
        Finding("suite-problem", f"could not collect autograder/{A}/test_secret.py: {SECRET}", "error"),
        Finding("sandbox-degraded", "this machine could not give the sandbox: network isolation", "info"),
    ]
    if status == "rejected":
        for q in questions:
            q.tests, q.points = [], (0.0 if q.kind == "autograded" else None)
        findings = [Finding("invalid-json", "the notebook is not valid JSON (line 3)", "error")]
    return SubmissionResult(
        student,
        A,
        "standalone",
        f"/tmp/{student}.ipynb",
        status,
        questions,
        findings,
        {"execute_s": 3.2, "tests_s": 1.4},
    )


@pytest.fixture
def results():
    return [record("111"), record("222", padded_ok=True), record("333", status="rejected")]


def forbidden(text: str) -> list[str]:
    return [bad for bad in (SECRET, "autograder/", "test_secret", "def test_", "Traceback", 'File "') if bad in text]


# ---------------------------------------------------------------- store


def test_store_round_trip(tmp_path, results):
    for result in reversed(results):
        store.save_result(result, tmp_path / "results")
    loaded = store.load_results(tmp_path / "results")
    assert [r.to_dict() for r in loaded] == [r.to_dict() for r in results]
    assert store.load_results(tmp_path / "results", assignment="other") == []
    assert not list((tmp_path / "results").glob("*.tmp"))
    with pytest.raises(ValueError):
        store.save_result(SubmissionResult("../escape", A, "standalone"), tmp_path / "results")
    with pytest.raises(FileNotFoundError):
        store.load_results(tmp_path / "nowhere")


# ---------------------------------------------------------------- Gradescope


def test_gradescope_results_json_schema(results):
    data = gradescope.results_json(results[0])
    json.dumps(data)
    assert set(data) >= {"score", "execution_time", "output", "tests", "visibility", "stdout_visibility"}
    assert data["score"] == 3.0 and data["execution_time"] == 5
    assert len(data["tests"]) == 3  # the written question is graded by hand, not here
    for test in data["tests"]:
        assert set(test) >= {"name", "score", "max_score", "output", "visibility", "status"}
        assert isinstance(test["score"], float) and isinstance(test["max_score"], float)
        assert test["visibility"] == "visible" and test["status"] in ("passed", "failed")
    failed = next(t for t in data["tests"] if t["status"] == "failed")
    assert failed["name"] == "Attention: Padded keys get zero attention" and failed["score"] == 0.0
    assert failed["output"].startswith("attention to padded keys must be 0")
    assert "MHA: Output shape (batch3)" in [t["name"] for t in data["tests"]]  # acronyms kept
    assert sum(t["max_score"] for t in data["tests"]) == results[0].autograded_max
    assert "graded by hand" in data["output"] and "restored" in data["output"]
    assert "network isolation" not in data["output"]
    assert forbidden(json.dumps(data)) == []


def test_gradescope_rejected_submission_scores_zero_with_a_reason(results):
    data = gradescope.results_json(results[2])
    assert data["score"] == 0.0
    assert [t["max_score"] for t in data["tests"]] == [3.0, 2.0]
    assert all(t["score"] == 0.0 for t in data["tests"])
    assert "not valid JSON" in data["output"]


def test_gradescope_run_path(tmp_path, results):
    submission = tmp_path / "submission"
    submission.mkdir()
    # A real notebook of the assignment: run() refuses unreadable or foreign notebooks before grading.
    (submission / f"{A}.ipynb").write_bytes(next((REPO / "source" / A).glob("*.ipynb")).read_bytes())
    (submission / "notes.txt").write_text("hi")
    (tmp_path / "submission_metadata.json").write_text(json.dumps({"users": [{"email": "jd@uni.edu"}]}))
    seen = []

    def fake_grade(assignment, path, student):
        seen.append((assignment.name, Path(path).name, student))
        graded = record(student, padded_ok=True)
        # a clean grading: a suite problem is the grader's failure (tests/platforms/test_entry_points.py)
        graded.findings = [f for f in graded.findings if f.code != "suite-problem"]
        return graded

    out = tmp_path / "results" / "results.json"
    gradescope_runner.run(default().assignment(A), submission, out, grade=fake_grade)
    assert seen == [(A, f"{A}.ipynb", "jd@uni.edu")]
    written = json.loads(out.read_text())
    assert written["score"] == 5.0 and "notes.txt" in written["output"]

    def broken_grade(assignment, path, student):
        raise RuntimeError(SECRET)

    # Gradescope's metadata says when it was due (Bea's own extension first) and when it came: 30 h late.
    # A course with no late policy keeps the score; the policy itself is applied the same way as in every
    # export (course_decisions → adjust.apply).
    (tmp_path / "submission_metadata.json").write_text(
        json.dumps(
            {
                "created_at": "2026-11-02T18:00:00.000000+00:00",
                "assignment": {"due_date": "2026-11-01T12:00:00Z"},
                "users": [
                    {"email": "bea@uni.edu", "name": "Bea", "assignment": {"due_date": "2026-11-01T12:00:00+00:00"}}
                ],
            }
        )
    )
    assert gradescope_runner.submission_facts(tmp_path / "submission_metadata.json") == {
        "name": "Bea",
        "hours_late": 30.0,
    }
    late = gradescope_runner.course_decisions(record("bea"), {"hours_late": 30.0}, Settings())
    assert late.late_percent == 0 and json.loads(json.dumps(gradescope.results_json(late)))["score"] == 3.0
    from assignments.exports import adjust

    penalised = adjust.apply([record("bea")], {"bea": {"hours_late": 30.0}}, adjust.LatePolicy(per_day=10))[0]
    shown = gradescope.results_json(penalised)
    assert shown["score"] == 2.0 and "Late penalty: -1 points (2 day(s) late" in shown["output"], (
        "3 of 5 autograded points less 2 started days x 10% of the 5 points Gradescope grades, not of all 8"
    )

    # The grader's own failure is no score of the student's: no results.json at all, so that Gradescope
    # shows "The autograder failed to execute correctly" (a stale one is removed too).
    assert out.exists()
    assert gradescope_runner.run(default().assignment(A), submission, out, grade=broken_grade) is None
    assert not out.exists(), "a grader failure left a results.json, which Gradescope would show as a score"

    (submission / f"{A}.ipynb").unlink()
    gradescope_runner.run(default().assignment(A), submission, out, grade=fake_grade)
    written = json.loads(out.read_text())
    assert written["score"] == 0.0 and "no .ipynb file was uploaded" in written["output"]
    assert len(seen) == 1


def fake_repo(root: Path) -> Path:
    for name in ("toy", "other"):
        for kind in ("source", "release"):
            (root / kind / name).mkdir(parents=True)
            (root / kind / name / f"{name}.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))
        (root / "autograder" / name / "mutants").mkdir(parents=True)
        (root / "autograder" / name / "__init__.py").write_text("")
        (root / "autograder" / name / f"test_{name}.py").write_text("def test_x(student): pass\n")
        (root / "autograder" / name / "mutants" / "wrong.py").write_text("")
        (root / "autograder" / name / "__pycache__").mkdir()
        (root / "autograder" / name / "__pycache__" / "x.pyc").write_bytes(b"")
    (root / "autograder" / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text((REPO / "pyproject.toml").read_text())
    return root


def test_gradescope_autograder_zip(tmp_path):
    repo = fake_repo(tmp_path / "repo")
    out = gradescope_bundle.build_autograder_zip(Course(repo).assignment("toy"), tmp_path / "dist" / "toy.zip")
    with zipfile.ZipFile(out) as archive:
        names = set(archive.namelist())
        modes = {i.filename: i.external_attr >> 16 for i in archive.infolist()}
        setup = archive.read("setup.sh").decode()
        runner = archive.read("run_autograder").decode()
        lock = archive.read("locks/python3.10.txt").decode()
        archive.extractall(tmp_path / "unpacked")
    for script in ("setup.sh", "run_autograder"):
        assert modes[script] & stat.S_IXUSR and stat.S_ISREG(modes[script])
    assert {
        "assignments/__init__.py",
        "assignments/platforms/gradescope/runner.py",
        "assignments/results/model.py",
        "autograder/__init__.py",
        "autograder/toy/__init__.py",
        "autograder/toy/test_toy.py",
        "source/toy/grading.json",
        "release/toy/toy.ipynb",
        "pyproject.toml",
    } <= names
    assert {f"locks/python{python}.txt" for python in lockfile.supported_pythons()} <= names
    assert "source/toy/toy.ipynb" not in names, "the source notebook holds the solutions: it stays out"
    assert not [n for n in names if "other" in n or "mutants" in n or "__pycache__" in n or n.endswith(".pyc")]
    # Pinned (issues 24 and 36): the image's Python picks its lock; pip and uv at the lock's versions; torch
    # alone from the CPU index, then the lock, both by uv (issue 32: a minute where pip took over two).
    assert 'LOCK="$ROOT/source/locks/python$PY.txt"' in setup
    assert 'pip install -c "$LOCK" pip uv' in setup and '"$ROOT/venv/bin/uv" pip install' in setup
    assert "download.pytorch.org/whl/cpu" in setup and '"torch==$TORCH"' in setup
    assert '--compile-bytecode --index-url "${PIP_INDEX_URL:-https://pypi.org/simple}" -r "$LOCK"' in setup
    pins = lockfile.read(lockfile.lock_path("3.10"))
    assert f"nbgrader=={pins['nbgrader']}\n" in lock and ">=" not in lock and "torch==" in lock
    assert "--assignment toy" in runner and 'ROOT="${AUTOGRADER_ROOT:-/autograder}"' in runner
    assert 'RESULTS="$ROOT/results/results.json"' in runner
    assert subprocess.run(["bash", "-n", str(tmp_path / "unpacked" / "run_autograder")]).returncode == 0
    # The zip's own entry point starts from the unpacked files alone.
    done = subprocess.run(
        [sys.executable, "-m", "assignments.platforms.gradescope.runner", "--help"],
        cwd=tmp_path / "unpacked",
        env={**os.environ, "PYTHONPATH": str(tmp_path / "unpacked")},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "--submission-dir" in done.stdout
    again = gradescope_bundle.build_autograder_zip(Course(repo).assignment("toy"), tmp_path / "dist" / "again.zip")
    assert again.read_bytes() == out.read_bytes()  # same inputs, same bytes
    with pytest.raises(FileNotFoundError, match="release"):
        (repo / "release" / "toy" / "toy.ipynb").unlink()
        gradescope_bundle.build_autograder_zip(Course(repo).assignment("toy"), tmp_path / "dist" / "broken.zip")


# ---------------------------------------------------------------- Canvas


HOMEWORK = canvas.CanvasAssignment("Homework 1", "4821")


def read_csv(path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def test_canvas_csv_has_one_column_for_the_existing_canvas_assignment(tmp_path, results, capsys):
    roster = {
        "111": {"name": "doejane", "user_id": "111"},
        "222": {"name": "Jane Roe", "user_id": "222", "sis_user_id": "s222", "section": "B"},
    }
    table = read_csv(canvas.write_canvas_csv(results, tmp_path / "canvas.csv", canvas.CanvasOptions(HOMEWORK), roster))
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Homework 1 (4821)"]
    assert table[1] == ["Points Possible", "", "", "", "", "8"]
    # By default a written answer not graded yet withholds the total (Canvas keeps what it has): 111 and 222
    # wait for a grader; 333's notebook could not be read, so it has nothing to wait for and scores 0.
    assert table[2:] == [
        ["doejane", "111", "", "", "", ""],
        ["Jane Roe", "222", "s222", "", "B", ""],
        ["333", "333", "", "", "", "0"],
    ]
    assert "2 written answer(s) of 2 student(s) are not graded yet" in capsys.readouterr().out
    graded = record("444", padded_ok=True)
    graded.questions[2].points = 2.5
    assert canvas.rows([graded], canvas.CanvasOptions(HOMEWORK), points_possible=False)[1][-1] == "7.5"


def test_canvas_posts_partial_totals_only_when_asked_and_adds_questions_on_request(tmp_path, results, capsys):
    graded = record("444", padded_ok=True)
    graded.questions[2].points = 2.5
    opts = canvas.CanvasOptions(HOMEWORK, ungraded_written="partial", per_question=True)
    table = read_csv(canvas.write_canvas_csv(results + [graded], tmp_path / "canvas.csv", opts))
    assert "2 written answer(s) of 2 student(s) are not graded yet; as asked" in capsys.readouterr().out
    assert table[0][5:] == [
        "Homework 1 (4821)",
        "Homework 1: Attention",
        "Homework 1: MHA",
        "Homework 1: Attention (written)",
    ]
    assert table[1][5:] == ["8", "3", "2", "3"]
    assert [row[5] for row in table[2:]] == ["3", "5", "0", "7.5"]
    # A pending answer's own column is empty in either mode; the rejected record's reads as nothing graded.
    assert table[2][6:] == ["1", "2", ""] and table[5][6:] == ["3", "2", "2.5"]


def test_canvas_assignment_comes_from_the_course_configuration(tmp_path):
    from assignments.course import Course

    (tmp_path / "pyproject.toml").write_text(
        '[tool.course]\nterm = "t"\n[tool.course.canvas]\nungraded_written = "omit"\n'
        '[tool.course.canvas.assignments]\ntransformers = { name = "HW 1", id = 77 }\n'
    )
    hw = Course(tmp_path).assignment("transformers")
    # "omit" and "zero" are the earlier names of "withhold" and "partial".
    assert canvas.options(hw) == canvas.CanvasOptions(canvas.CanvasAssignment("HW 1", "77"), "withhold")
    other = canvas.options(hw, "Other", "5", "zero")
    assert other.target.column == "Other (5)" and other.ungraded_written == "partial"
    assert canvas.options(hw, ungraded_written="partial").ungraded_written == "partial"
    (tmp_path / "pyproject.toml").write_text('[tool.course.canvas]\nungraded_written = "maybe"\n')
    with pytest.raises(ValueError, match="ungraded_written"):
        canvas.options(Course(tmp_path).assignment("transformers"))


# ---------------------------------------------------------------- nbgrader gradebook


def toy_course(root: Path) -> str:
    """A small nbgrader course whose assignment "toy" has the questions of ``record``.

    The gradebook gets what ``nbgrader generate_assignment`` records for such a source notebook (its
    SaveCells step), through nbgrader's API: the CLI would cost tens of seconds here.
    """
    root.mkdir(parents=True)
    (root / "nbgrader_config.py").write_text(f"c = get_config()\nc.CourseDirectory.root = {str(root)!r}\n")
    db = f"sqlite:///{root / 'gradebook.db'}"
    with nbgrader_gradebook.open_gradebook(db) as gb:
        gb.update_or_create_assignment("toy")
        gb.update_or_create_notebook("toy", "toy")
        gb.update_or_create_solution_cell("attention", "toy", "toy")
        gb.update_or_create_grade_cell("attention_tests", "toy", "toy", max_score=3.0, cell_type="code")
        gb.update_or_create_grade_cell("mha_tests", "toy", "toy", max_score=2.0, cell_type="code")
        gb.update_or_create_grade_cell("attention_written", "toy", "toy", max_score=3.0, cell_type="markdown")
        gb.update_or_create_solution_cell("attention_written", "toy", "toy")
    return db


def test_gradebook_round_trip_through_nbgrader_export(tmp_path, results):
    from nbgrader.api import Gradebook

    root = tmp_path / "course"
    db = toy_course(root)
    for r in results:
        r.assignment = "toy"
    roster = {"111": {"name": "Jane Doe"}}
    summary = nbgrader_gradebook.write_gradebook(results, "toy", db, roster)
    assert summary.students == 3 and summary.grades_set == 6 and summary.problems == []
    with Gradebook(db) as gb:  # a hand grade for a written answer, as formgrader would save it
        grade = gb.find_grade("attention_written", "toy", "toy", "222")
        assert grade.needs_manual_grade and grade.auto_score is None
        grade.manual_score = 2.5
        assert gb.find_grade("mha_tests", "toy", "toy", "111").needs_manual_grade is False
        gb.db.commit()
    results[1].questions[0].points = 3.0
    nbgrader_gradebook.write_gradebook(results, "toy", db, roster)  # exporting again keeps the hand grade
    path = nbgrader_gradebook.nbgrader_export(root, tmp_path / "out" / "grades.csv", db, "toy")
    with open(path, newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert set(rows) == {"111", "222", "333"}
    assert float(rows["111"]["raw_score"]) == 3.0 and float(rows["111"]["max_score"]) == 8.0
    assert (rows["111"]["first_name"], rows["111"]["last_name"]) == ("Jane", "Doe")
    assert float(rows["222"]["raw_score"]) == 5.0 + 2.5
    assert float(rows["333"]["raw_score"]) == 0.0
    with pytest.raises(LookupError, match="not in the gradebook"):
        nbgrader_gradebook.write_gradebook(results, "missing", db)


def grade_by_hand(db: str, student: str, grade_id: str, score: float | None, comment: str) -> None:
    """What formgrader saves when a grader enters points and a comment for one written answer."""
    from nbgrader.api import Gradebook

    with Gradebook(db) as gb:
        submission = gb.find_submission_notebook("toy", "toy", student)
        grade = gb.find_grade(grade_id, "toy", "toy", student)
        grade.manual_score = score
        grade.needs_manual_grade = False
        for entry in submission.comments:
            if entry.name == grade_id:
                entry.manual_comment = comment
        gb.db.commit()


def test_hand_grades_from_the_gradebook_reach_every_export(tmp_path, results):
    """A written answer graded in formgrader shows in Canvas (column and total), nbgrader's CSV, the
    feedback (with the comment) and the class report; Gradescope leaves it out; regrading keeps it."""
    root = tmp_path / "course"
    db = toy_course(root)
    for r in results:
        r.assignment = "toy"
    nbgrader_gradebook.write_gradebook(results, "toy", db)
    grade_by_hand(db, "222", "attention_written", 2.5, "Good intuition; say why the scale is sqrt(d_k).")
    out = tmp_path / "exports"
    folder = tmp_path / "results"
    submitted = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("My answer <script>go()</script>")])
    for r in results:
        r.source_file = str(tmp_path / f"{r.student}.ipynb")
        Path(r.source_file).write_text(nbformat.writes(submitted))
        store.save_result(r, folder)
    for _ in range(2):  # the second run is a regrade: the hand grade and comment must survive it
        written = export(
            Run.of_results(folder).with_exports(out).with_course(root), default().assignment("toy"), db_url=db
        )
        assert set(written) == set(exports.FORMATS)
    with open(out / "canvas" / "toy_canvas.csv", newline="") as handle:
        table = {row["Student"]: row for row in csv.DictReader(handle)}
    assert table["222"]["toy"] == "7.5", "Canvas total should add the hand grade to 5 autograded"
    assert table["111"]["toy"] == "", "a written answer not graded yet withholds the total by default"
    with open(out / "nbgrader" / "grades.csv", newline="") as handle:
        nb_rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert float(nb_rows["222"]["raw_score"]) == 7.5
    md = (out / "feedback" / "222.md").read_text(encoding="utf-8")
    assert "Attention (written): 2.5 / 3 (graded by hand)" in md
    assert "Score: 7.5 / 8" in md
    assert "Grader's comment:** Good intuition; say why the scale is sqrt(d_k)." in md
    assert "written: 2.5 / 3" in md and "not graded yet" not in md
    assert "say why the scale is sqrt(d_k)." in (out / "feedback" / "222.html").read_text(encoding="utf-8")
    written = markdown_inline(report.titles(results, "toy")["attention_written"])
    assert f"| {written} | attention_written | written | 3 | 1 | 2.50 | 2.5 | 0 | 0.83 | – |" in (
        out / "report" / "summary.md"
    ).read_text(encoding="utf-8")
    scored = json.loads((out / "gradescope-preview" / "222.json").read_text())
    assert "1 written answer not graded yet" in (out / "report" / "summary.md").read_text(encoding="utf-8")
    assert all("(written)" not in test.get("name", "") for test in scored["tests"])
    assert scored["score"] == 5.0, "Gradescope grades written answers itself"
    shown = root / "autograded" / "222" / "toy" / "toy.ipynb"
    assert "My answer &lt;script&gt;go()" in shown.read_text(), (
        "formgrader needs the student's notebook, made inert, to show beside the grades"
    )
    stored = store.load_results(folder, "toy")[1]
    assert stored.question("attention_written").points is None, "exports must not rewrite the records"
    with nbgrader_gradebook.open_gradebook(db) as gb:
        grade = gb.find_grade("attention_written", "toy", "toy", "222")
        assert grade.manual_score == 2.5 and grade.auto_score is None


def test_merge_hand_grades_leaves_ungraded_questions_waiting(results):
    hand = {"222": {"attention_written": nbgrader_gradebook.HandGrade(None, "see me")}}
    merged = nbgrader_gradebook.merge_hand_grades(results, hand)
    question = merged[1].question("attention_written")
    assert question.points is None and question.comment == "see me"
    assert "Attention (written): not graded yet (3 points)" in feedback.feedback_markdown(merged[1])
    assert results[1].question("attention_written").comment == "", "the input records must stay as they were"


# ---------------------------------------------------------------- feedback and report


def test_feedback_markdown_and_html(tmp_path, results):
    md = feedback.feedback_markdown(results[0])
    assert "## Attention: 1 / 3" in md
    assert "✗ Padded keys get zero attention: 0 / 2 — attention to padded keys must be 0; got up to 0.31" in md
    assert "✓ Rows sum to one: 1 / 1" in md and "Output shape (batch3)" in md
    # Issue 26: an ungraded written answer is "not graded yet", never "0 / N".
    assert "## Attention (written): not graded yet (3 points)" in md
    assert "**Autograded: 3 / 5 points; written: not graded yet (3 points)**" in md
    # Pending means pending: no partial sum is shown as the score.
    assert "Score: pending: 1 written answer (3 points) not graded yet" in md and "0 / 3" not in md
    assert "Score: 3 / 8" not in md
    assert "test cell mha_tests was edited" in md and "internal problem" in md
    assert "network isolation" not in md  # notes about the grading machine are for staff
    page = feedback.feedback_html(results[0])
    assert page.startswith("<!DOCTYPE html>") and "&lt;b&gt;" in page and "<b>" not in page
    assert "0.31 <b>" not in page
    rejected = feedback.feedback_markdown(results[2])
    assert "could not be graded" in rejected and "not valid JSON" in rejected
    written = feedback.write_feedback(results, tmp_path / "feedback")
    assert sorted(p.name for p in written) == ["111.html", "111.md", "222.html", "222.md", "333.html", "333.md"]
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert forbidden(text) == [], path.name
        assert "/tmp/" not in text  # the grader's file paths are not the student's business


def test_a_test_message_is_bounded_and_printable_in_the_record_itself():
    from assignments.results.model import MESSAGE_CHARS

    made = TestResult("test_x", "attention_tests", 0.0, 1.0, "failed", "a\x1b[2J\u202eb\nc" + "y" * 10**6)
    assert len(made.message) == MESSAGE_CHARS and made.message.startswith("a?[2J?b c")
    assert TestResult(**{**made.__dict__}).message == made.message, "bounding twice changes nothing"


def test_markdown_feedback_escapes_what_a_student_influenced():
    result = record("`x`<img src=x onerror=alert(1)>[a](http://evil)")
    result.questions[0].tests[1].message = "got **bold** <img src=x onerror=alert(1)> ![i](http://evil/i.png)"
    result.findings = [Finding("shortcut-x", "uses `helper` from <script>", "warning", "attention_tests")]
    md = feedback.feedback_markdown(result)
    assert "<img" not in md and "<script>" not in md and "**bold**" not in md, md
    assert not re.search(r"(?<!\\)\]\(", md) and not re.search(r"(?<!\\)`", md), "no link, image or code span"
    assert "&lt;img src=x onerror=alert(1)&gt;" in md and "\\*\\*bold\\*\\*" in md
    assert "test cell mha_tests was edited" in feedback.feedback_markdown(record("111")), (
        "an underscore inside a word stays as it is"
    )


def test_feedback_strips_traceback_frames():
    result = record("555")
    result.questions[0].tests[1].message = (
        'Traceback (most recent call last):\n  File "/srv/autograder/x.py",'
        " line 3, in test\n    " + SECRET + "\nValueError: shapes differ"
    )
    md = feedback.feedback_markdown(result)
    assert "ValueError: shapes differ" in md and forbidden(md) == []


def test_class_report(tmp_path, results):
    summary, histograms, questions, index, *pages = report.write_report(results, tmp_path / "report", A)
    for png in (histograms, questions):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000, png
    text = summary.read_text()
    names = {g: markdown_inline(t) for g, t in report.titles(results, A).items()}
    # the rejected upload is left out of the per-question figures; two students are too few for a correlation
    assert f"| {names['attention_tests']} | attention_tests | autograded | 3 | 2 | 2.00 | 2 | 1 | 0.67 | – |" in text
    assert f"| {names['attention_written']} | attention_written | written | 3 | 0 | – | – | – | – | – |" in text
    assert "| Autograded total (every submission) | – | total | 5 | 3 |" in text, text
    # 333's notebook could not be read: nothing of it waits for a grader; 111's and 222's answers do
    assert "2 written answers not graded yet" in text
    # each code with its meaning from the catalogue (results/findings.py), then count and students
    assert re.search(r"\| suite-problem \| [^|]+ \| 2 \| 2 \|", text), text
    assert re.search(r"\| invalid-json \| [^|]+ \| 1 \| 1 \|", text), text
    assert f"| {names['attention_tests']} | Padded keys get zero attention | 1 / 2 |" in text
    assert "1 rejected" in text and "2 graded" in text
    assert index.name == "index.md" and sorted(p.name for p in pages) == ["111.md", "222.md", "333.md"]
    assert "[222](222.md)" in index.read_text()


# ---------------------------------------------------------------- command line


def test_course_export_command(tmp_path, results, capsys):
    for r in results:
        store.save_result(r, tmp_path / "grades" / "results")
    (tmp_path / "grades" / "intake.json").write_text(
        json.dumps(
            {
                "assignment": A,
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
                    }
                ],
            }
        )
    )
    out = tmp_path / "exports"
    code = course(
        [
            "export",
            A,
            "--results",
            str(tmp_path / "grades" / "results"),
            "--out",
            str(out),
            "--formats",
            "gradescope-preview,canvas,feedback,report",
            "--db",
            f"sqlite:///{tmp_path / 'none.db'}",
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert f"canvas: 1 file(s) in {out / 'canvas'}" in printed
    assert sorted(p.name for p in (out / "gradescope-preview").iterdir()) == ["111.json", "222.json", "333.json"]
    assert '"doejane","111"' in (out / "canvas" / f"{A}_canvas.csv").read_text(), "every CSV field is quoted"
    assert (out / "report" / "histograms.png").stat().st_size > 0
    assert len(list((out / "feedback").glob("*.html"))) == 3
    assert course(["export", A, "--results", str(tmp_path / "none"), "--out", str(out)]) == 2


def test_titles_keep_acronyms_and_counts_their_nouns():
    assert text.humanise_test("test_mha_matches_pytorch") == "MHA matches PyTorch"
    assert text.humanise_test("test_train_lm_uses_causal_mask[seed1]") == "Train LM uses causal mask (seed1)"
    assert text.humanise_question("mlm_step_tests") == "MLM step"
    assert text.humanise_question("bert_gru_sentiment_tests") == "BERT GRU sentiment"
    assert text.plural(1, "entry", "entries") == "1 entry" and text.plural(2, "submission") == "2 submissions"
