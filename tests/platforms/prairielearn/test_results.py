"""PrairieLearn's results.json (assignments/platforms/prairielearn/results.py) from records made here: the fields its
docs/externalGrading.md specifies, for a graded record and for one that could not be graded."""

from __future__ import annotations

import json

import pytest

from assignments.platforms.prairielearn.results import results_json, write_results_json
from assignments.results.model import Finding, QuestionResult, SubmissionResult, TestResult


def graded() -> SubmissionResult:
    return SubmissionResult(
        "student",
        "transfer_lm",
        "standalone",
        questions=[
            QuestionResult(
                "square_mask_tests",
                "autograded",
                2.0,
                1.0,
                [
                    TestResult("test_mask_is_causal", "square_mask_tests", 1.0, 1.0, "passed"),
                    TestResult("test_mask_dtype", "square_mask_tests", 0.0, 1.0, "failed", "mask should be float"),
                ],
            ),
            QuestionResult("greedy_tests", "autograded", 3.0, 0.0, []),  # the grader stopped before it
            QuestionResult("mask_written", "manual", 2.0, None),
        ],
    )


def test_a_graded_record_scores_its_share_of_the_autograded_points_with_points_on_every_test():
    data = results_json(graded())
    assert data["gradable"] is True and data["score"] == pytest.approx(1 / 5), (
        f"1 of 5 autograded points should give score 0.2 (written questions left out), not {data['score']}"
    )
    assert [(t["points"], t["max_points"]) for t in data["tests"]] == [(1.0, 1.0), (0.0, 1.0), (0.0, 3.0)], (
        "every hidden test, and a question no test ran for, should carry points and max_points"
    )
    failed = data["tests"][1]
    assert failed["message"] == "mask should be float" and "Mask dtype" in failed["name"], failed
    assert "Autograded score: 1 / 5" in data["message"]


def test_an_upload_that_could_not_be_graded_is_not_gradable_and_says_why(tmp_path):
    record = SubmissionResult(
        "student",
        "transfer_lm",
        "standalone",
        status="rejected",
        findings=[Finding("bad-notebook", "upload.ipynb is not a readable Jupyter notebook", "error")],
    )
    path = write_results_json(record, tmp_path / "results" / "results.json")
    data = json.loads(path.read_text())
    assert data["gradable"] is False and "score" not in data, f"no score for an ungradable upload: {data}"
    assert data["format_errors"] == ["upload.ipynb is not a readable Jupyter notebook"], data["format_errors"]
    assert "does not count" in data["message"], data["message"]
