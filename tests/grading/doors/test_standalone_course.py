"""A real assignment behind the standalone door: its reference gets full marks, its blank release 0, and
the standalone door scores the reference as the in-process door (the self-test's) does.

The door's own behaviour (hostile, tampered and damaged submissions, the two doors agreeing) is checked on
the toy in test_standalone.py; this is a check of the course's content, run by ``make check-course``. The
quickest assignment stands for the three; ``COURSE_STANDALONE_ASSIGNMENT`` picks another.
"""

import os

import nbformat
import pytest

from assignments import notebooks
from assignments.course import default
from assignments.grading.sandbox.limits import Limits
from assignments.results.model import SubmissionResult
from tests.fixtures import batch
from tests.helpers import QUICKEST

pytestmark = [pytest.mark.course, pytest.mark.xdist_group("standalone_course")]


def real_assignment() -> str:
    return os.environ.get("COURSE_STANDALONE_ASSIGNMENT") or QUICKEST


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The reference through both doors and the blank release, graded once; label -> SubmissionResult."""
    folder = tmp_path_factory.mktemp("standalone-course")
    real = real_assignment()
    source_notebook = default().assignment(real).source_notebook()
    source = folder / "reference.ipynb"
    source.write_text(nbformat.writes(source_notebook))
    blank = folder / "blank.ipynb"
    blank.write_text(nbformat.writes(notebooks.blank_notebook(source_notebook)))
    limits = batch.limits_dict(Limits())
    jobs = [
        ("reference", None, real, str(source), limits),
        ("in-process", "in-process", real, str(source), limits),
        ("blank", None, real, str(blank), limits),
    ]
    return {label: SubmissionResult.from_dict(result) for label, result in batch.grade_all(jobs, workers=3).items()}


def failures_of(question):
    return [f"{t.name}: {t.message}" for t in question.tests if t.outcome != "passed"]


def test_real_reference_gets_full_marks(graded):
    result = graded["reference"]
    assert result.status == "graded"
    missing = {
        q.grade_id: (q.points, q.max_points, failures_of(q))
        for q in result.questions
        if q.kind == "autograded" and q.points != q.max_points
    }
    assert missing == {}
    assert [f for f in result.findings if f.severity == "error"] == []


def test_real_blank_release_gets_zero(graded):
    result = graded["blank"]
    assert result.status == "graded" and result.autograded_points == 0, result.scores()


def test_real_standalone_agrees_with_in_process(graded):
    standalone, in_process = graded["reference"], graded["in-process"]
    differ = {
        q.grade_id: {
            "standalone": (q.points, failures_of(q)),
            "in-process": (in_process.question(q.grade_id).points, failures_of(in_process.question(q.grade_id))),
        }
        for q in standalone.questions
        if q.points != in_process.question(q.grade_id).points
    }
    timed_out = bool(differ) and all(
        any("did not finish within" in message for side in entry.values() for message in side[1])
        for entry in differ.values()
    )
    if timed_out:
        pytest.skip(f"the machine was too busy for the hidden tests' own timeouts; differences: {differ}")
    assert differ == {}, "the two doors disagree on the reference"
