"""The Gradescope and PrairieLearn entry points never crash on a tree, never print a file name's control
characters to staff, and report the grader's own failure as a failure, never as the student's 0 (issue
#43, item 7).

- **deep upload**: 1,200 nested folders beside the notebook, through each entry point with the recursion
  limit just above the caller's depth (``fixtures/deep.shallow_stack``, emulating Python 3.10/3.11, where
  ``os.walk`` recurses once per level): a results.json with the notebook's score, and a note that the
  deep folders were not looked in.
- **hostile names**: files named with an escape sequence that clears the screen, a carriage return and a
  right-to-left override; neither the staff log (stdout) nor results.json carries one of those characters.
- **grader failure**: the toy's hidden suite missing (or raising), graded for real: Gradescope gets no
  results.json and a non-zero exit ("The autograder failed to execute correctly", its
  docs/troubleshooting.md), PrairieLearn a non-zero exit (its grader host then records a failed job, not a
  score), and each staff log says GRADER FAILURE and why; the bundle's run_autograder leaves no score
  when the grader dies (killed for memory) either.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from assignments import trees
from assignments.grading.doors.standalone import grade_submission
from assignments.platforms.gradescope import bundle as gradescope_bundle
from assignments.platforms.gradescope import runner as gradescope_runner
from assignments.platforms.prairielearn import runner as prairielearn_runner
from assignments.results.model import QuestionResult, SubmissionResult, TestResult
from tests.fixtures import toy
from tests.fixtures.deep import DEPTH, HOSTILE_NAMES, deep_tree, shallow_stack

UNPRINTABLE = ("\x1b", "\r", "\u202e")


def full_marks(assignment, path, student) -> SubmissionResult:
    """What grading a correct notebook records (no sandbox: these tests are about the entry points)."""
    test = TestResult("test_add_numbers", "add_tests", 1.0, 1.0, "passed")
    return SubmissionResult(
        student,
        toy.NAME,
        "standalone",
        str(path),
        questions=[QuestionResult("add_tests", "autograded", 1.0, 1.0, [test])],
    )


@pytest.fixture
def deep_trees():
    """Paths of deep trees a test made, removed after it whatever happened: pytest's own clean-up of old
    temporary folders uses shutil.rmtree, which recurses, so a tree left behind would break a later run."""
    made: list[Path] = []
    yield made
    for path in made:
        trees.remove_tree(path)


def hostile_upload(folder: Path, the_toy, deep_trees: list) -> Path:
    """The toy's reference notebook, a 1,200-deep tree holding another notebook at the bottom, and files
    whose names carry control characters."""
    folder.mkdir(parents=True)
    deep_trees.append(folder / "nested")
    (folder / f"{toy.NAME}.ipynb").write_text(nbformat.writes(the_toy.reference()), encoding="utf-8")
    deep_tree(folder / "nested", DEPTH, leaf=f"{toy.NAME}-hidden.ipynb")
    for name in HOSTILE_NAMES:
        (folder / name).write_text("x")
    return folder


def no_control_characters(text: str, where: str) -> None:
    found = [repr(c) for c in UNPRINTABLE if c in text]
    assert not found, f"{where} carries {', '.join(found)} from a file name:\n{text!r}"


def test_gradescope_grades_beside_a_1200_deep_tree_and_escapes_names_for_staff(
    toy_assignment, tmp_path, capsys, deep_trees
):
    upload = hostile_upload(tmp_path / "submission", toy_assignment, deep_trees)
    out = tmp_path / "results" / "results.json"
    with shallow_stack():
        data = gradescope_runner.run(toy_assignment.assignment, upload, out, tmp_path / "none.json", grade=full_marks)
    assert data is not None and json.loads(out.read_text()) == data
    assert data["score"] == 1.0, data["output"]
    assert f"more than {gradescope_runner.UPLOAD_DEPTH} levels deep were not looked in" in data["output"], data[
        "output"
    ]
    staff = capsys.readouterr().out
    assert "screen-cleared.txt" in staff and "OVERWRITTEN.txt" in staff, f"staff should read the names:\n{staff}"
    no_control_characters(staff, "Gradescope's staff log")
    no_control_characters(json.dumps(data, ensure_ascii=False), "results.json")


def _job(tmp_path: Path, the_toy) -> Path:
    """A PrairieLearn job folder whose question ships the toy course (tests/course/)."""
    job = tmp_path / "grade"
    shutil.copytree(the_toy.folder / "autograder", job / "tests" / "course" / "autograder")
    for kind in ("source", "release"):
        shutil.copytree(the_toy.folder / kind, job / "tests" / "course" / kind)
    (job / "data").mkdir()
    (job / "data" / "data.json").write_text("{}")
    return job


def test_prairielearn_grades_beside_a_1200_deep_tree_and_escapes_names_for_staff(
    toy_assignment, tmp_path, capsys, monkeypatch, deep_trees
):
    job = _job(tmp_path, toy_assignment)
    hostile_upload(job / "student", toy_assignment, deep_trees)
    monkeypatch.setattr(prairielearn_runner, "grade_with", lambda hw, path, who, limits=None: full_marks(hw, path, who))
    with shallow_stack():
        status = prairielearn_runner.main(toy.NAME, job)
    staff = capsys.readouterr().out
    assert status == 0, staff
    data = json.loads((job / "results" / "results.json").read_text())
    assert data["gradable"] is True and data["score"] == 1.0, data
    assert "levels deep were not looked in" in data["output"], data["output"]
    assert "screen-cleared.txt" in staff, staff
    no_control_characters(staff, "PrairieLearn's job log")
    no_control_characters(json.dumps(data, ensure_ascii=False), "results.json")


@pytest.fixture(params=["missing", "raising"])
def broken_toy(request, tmp_path):
    """The toy course with its hidden suite missing, or raising as it is collected."""
    the_toy = toy.build(tmp_path / "broken-course")
    suite = the_toy.tests_dir / "test_toy.py"
    if request.param == "missing":
        suite.unlink()
    else:
        suite.write_text("raise RuntimeError('the hidden suite is broken')\n")
    return the_toy


def test_a_broken_hidden_suite_is_gradescopes_failure_not_the_students_zero(broken_toy, tmp_path, capsys):
    upload = tmp_path / "submission"
    upload.mkdir()
    (upload / f"{toy.NAME}.ipynb").write_text(nbformat.writes(broken_toy.reference()), encoding="utf-8")
    out = tmp_path / "results" / "results.json"
    out.parent.mkdir()
    out.write_text('{"score": 5.0}')  # a stale one from an earlier run must not be what Gradescope reads

    def grade(assignment, path, student):
        return grade_submission(broken_toy.assignment, path, student, **broken_toy.overrides())

    assert gradescope_runner.run(broken_toy.assignment, upload, out, tmp_path / "none.json", grade=grade) is None
    assert not out.exists(), "a grader failure left a results.json: Gradescope would show it as the student's score"
    staff = capsys.readouterr().out
    assert "GRADER FAILURE" in staff and "suite-problem" in staff, staff


def test_gradescopes_command_exits_non_zero_without_results_when_the_grader_raises(tmp_path, monkeypatch, capsys):
    upload = tmp_path / "submission"
    upload.mkdir()
    (upload / "hw.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()), encoding="utf-8")
    out = tmp_path / "results.json"

    def crash(assignment, path, student):
        raise RuntimeError("the grader itself broke")

    monkeypatch.setattr(gradescope_runner, "_standalone_grader", lambda: crash)
    monkeypatch.setattr("assignments.grading.sandbox.preflight.refusal", lambda: None)
    status = gradescope_runner.main(["--assignment", "hw", "--submission-dir", str(upload), "--out", str(out)])
    assert status != 0 and not out.exists(), f"exit {status}; results.json left: {out.exists()}"
    assert "the grader itself broke" in capsys.readouterr().out

    def walk_crash(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    out.write_text("{}")
    monkeypatch.setattr(gradescope_runner, "grade_upload", walk_crash)
    status = gradescope_runner.main(["--assignment", "hw", "--submission-dir", str(upload), "--out", str(out)])
    assert status != 0 and not out.exists(), "an exception outside grading should fail the job, not score it"


def test_a_broken_hidden_suite_fails_the_prairielearn_job_instead_of_scoring(broken_toy, tmp_path, capsys):
    job = _job(tmp_path, broken_toy)
    (job / "student").mkdir()
    (job / "student" / f"{toy.NAME}.ipynb").write_text(nbformat.writes(broken_toy.reference()), encoding="utf-8")
    status = prairielearn_runner.main(toy.NAME, job)
    staff = capsys.readouterr().out
    assert status != 0, f"PrairieLearn marks a job failed only when its container exits non-zero:\n{staff}"
    assert not (job / "results" / "results.json").exists(), "no score (and no 'not gradable') for a grader failure"
    assert "GRADER FAILURE" in staff and "suite-problem" in staff, staff


@pytest.mark.parametrize("status", [137, 3])
def test_run_autograder_leaves_no_score_when_the_grader_dies_or_fails(tmp_path, status):
    """Gradescope's run_autograder (the bundle's script): a grader killed for memory (137) or one that
    reports its own failure (3) leaves no results.json, not even a stale one, and exits non-zero."""
    root = tmp_path / "autograder"
    for name in ("source", "submission", "results"):
        (root / name).mkdir(parents=True)
    (root / "results" / "results.json").write_text('{"score": 9.0}')
    python = root / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f"#!/bin/sh\necho grading\nexit {status}\n")
    python.chmod(0o755)
    script = tmp_path / "run_autograder"
    template = gradescope_bundle.RUN_AUTOGRADER
    for placeholder, value in (
        ("{assignment}", toy.NAME),
        ("{start_env}", ""),
        ("{zygote}", "z.py"),
        ("{zygote_flags}", ""),
    ):
        template = template.replace(placeholder, value)
    script.write_text(template)
    done = subprocess.run(
        ["bash", str(script)],
        env={**os.environ, "AUTOGRADER_ROOT": str(root)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0, f"run_autograder exited 0 after the grader exited {status}"
    assert not (root / "results" / "results.json").exists(), "Gradescope would read the results.json left as a score"
    assert "GRADER FAILURE" in done.stdout and "grading" in done.stdout, done.stdout + done.stderr
