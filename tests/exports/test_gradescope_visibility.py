"""Gradescope's test visibility as its specification states it (gradescope/autograder_samples docs/specs.md,
"Controlling Test Case Visibility"; issue #45, item 5), and the per-student export named as the preview it is.

- While tests are held back (after_due_date, after_published), Gradescope hides the student's total as well:
  the assignment-level visibility is the course's setting, every scored test carries it, and the
  submission's own message leaves the score out and says when it is shown. A question no test ran for
  (an upload that could not be graded) stays visible, so the student can send it again at once.
- "hidden" is meant for tests worth no points, which never hide the total: refused as the course's
  setting, by the runner and before a zip is built (one line, exit 2, nothing written).
- `course export`'s Gradescope files are a preview Gradescope cannot import, and say so.
"""

from __future__ import annotations

import json
import shutil

import pytest

from assignments.cli import main as course
from assignments.course import REPO
from assignments.exports import FORMATS, GRADESCOPE_PREVIEW, NOTES, gradescope
from assignments.results.model import Finding, QuestionResult, SubmissionResult, TestResult
from assignments.runs import store
from assignments.runs.folder import Run
from assignments.settings import Settings
from assignments.workflow import export
from tests.fixtures import toy


def graded() -> SubmissionResult:
    tests = [
        TestResult("test_add_numbers", "add_tests", 1.0, 1.0, "passed"),
        TestResult("test_add_tensors", "add_tests", 0.0, 1.0, "failed", "add should broadcast"),
    ]
    return SubmissionResult(
        "ada", toy.NAME, "standalone", questions=[QuestionResult("add_tests", "autograded", 2.0, 1.0, tests)]
    )


def rejected_upload() -> SubmissionResult:
    return SubmissionResult(
        "bob",
        toy.NAME,
        "standalone",
        status="rejected",
        questions=[QuestionResult("add_tests", "autograded", 2.0, 0.0)],
        findings=[Finding("bad-notebook", "bob.ipynb is not a readable Jupyter notebook", "error")],
    )


@pytest.mark.parametrize("setting", ["after_due_date", "after_published"])
def test_held_back_tests_hold_back_the_score_in_the_message_too(setting):
    data = gradescope.results_json(graded(), visibility=setting)
    assert data["visibility"] == setting, "the assignment-level value is the course's setting"
    assert {t["visibility"] for t in data["tests"]} == {setting}, data["tests"]
    assert "Autograded score" not in data["output"], f"Gradescope hides the total; the message must too: {data}"
    assert data["output"].startswith(gradescope.HELD_BACK[setting]), data["output"]
    assert data["score"] == 1.0, "the score is still reported to Gradescope, which shows it when the tests show"


def test_a_question_no_test_ran_for_stays_visible_while_tests_are_held_back():
    data = gradescope.results_json(rejected_upload(), visibility="after_due_date")
    assert [t["visibility"] for t in data["tests"]] == ["visible"], data["tests"]
    assert "could not be graded" in data["output"] and "not a readable Jupyter notebook" in data["output"], data


def test_visible_shows_the_score_as_before():
    data = gradescope.results_json(graded(), visibility="visible")
    assert data["visibility"] == "visible" and data["output"].startswith("Autograded score: 1 / 2"), data


def test_hidden_is_refused_because_every_test_here_carries_points(tmp_path, capsys):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.course]\ngradescope_test_visibility = "hidden"\n')
    with pytest.raises(ValueError, match="worth no points"):
        _ = Settings.read(tmp_path).gradescope_test_visibility
    the_toy = toy.build(tmp_path / "course")
    shutil.copy2(REPO / "pyproject.toml", the_toy.folder / "pyproject.toml")
    text = (the_toy.folder / "pyproject.toml").read_text()
    assert 'gradescope_test_visibility = "visible"' in text, "the course's setting, to turn to hidden"
    text = text.replace('gradescope_test_visibility = "visible"', 'gradescope_test_visibility = "hidden"')
    (the_toy.folder / "pyproject.toml").write_text(text)
    out = tmp_path / "dist" / "toy.zip"
    code = course(["gradescope-zip", toy.NAME, "--root", str(the_toy.folder), "--out", str(out)])
    printed = capsys.readouterr().out.strip().splitlines()
    assert code == 2 and len(printed) == 1 and "worth no points" in printed[0], (code, printed)
    assert not out.exists() and not out.parent.exists(), "nothing written"


def test_a_course_s_preview_takes_its_own_visibility_not_this_repository_s(tmp_path):
    """The toy course holds its tests back until grades are published; this repository shows them. The
    preview of the toy's class is written with the toy's setting (issue #49: it once read this repository's)."""
    assert Settings.read(REPO).gradescope_test_visibility == "visible", "the repository's own, for the contrast"
    the_toy = toy.build(tmp_path / "course")
    (the_toy.folder / "pyproject.toml").write_text('[tool.course]\ngradescope_test_visibility = "after_published"\n')
    run = Run(tmp_path / "run")
    store.save_result(graded(), run.results)
    written = export(run, the_toy.assignment, (GRADESCOPE_PREVIEW,))
    (path,) = written[GRADESCOPE_PREVIEW]
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["visibility"] == "after_published", data["visibility"]
    assert {t["visibility"] for t in data["tests"]} == {"after_published"}, data["tests"]
    assert data["output"].startswith(gradescope.HELD_BACK["after_published"]), data["output"]


def test_the_export_is_named_a_preview_that_gradescope_cannot_import():
    assert GRADESCOPE_PREVIEW in FORMATS and "gradescope" not in FORMATS
    assert "cannot import" in NOTES[GRADESCOPE_PREVIEW]
