"""A whole run on the toy course: intake, the standalone batch, every export (issue #36).

What ``course grade`` does for a term, on a course made for the test: ``grade_class`` takes the toy's
``Assignment`` to its grader processes, and the export job is gathered from that course (its gradebook
generated in the run's own nbgrader course folder). One student, so the run stays short.
"""

from __future__ import annotations

import csv

import nbformat

from assignments.runs.folder import Run
from assignments.workflow import export_all, grade_class
from tests.fixtures import toy


def test_a_class_of_the_toy_course_is_graded_and_exported_into_its_run(tmp_path):
    the_toy = toy.build(tmp_path / "course")
    # grader_version hashes the course's pyproject.toml with its grading files
    (the_toy.folder / "pyproject.toml").write_text('[project]\nname = "toy"\nversion = "1.0"\n')
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    # Named as Canvas names a download's files: the Canvas CSV carries Canvas's own ids only (issue #43).
    (inbox / "ada_1001_2001_toy.ipynb").write_text(nbformat.writes(the_toy.reference()), encoding="utf-8")
    run = Run(tmp_path / "run")
    (record,) = grade_class(the_toy.assignment, inbox, run, workers=1)
    assert record.status == "graded", record.findings
    assert record.autograded_points == record.autograded_max == 5, "the reference should get every autograded point"
    assert [q.title for q in record.questions][0] == "Toy assignment · Add", "titles come from the toy's notebook"
    export_all(the_toy.assignment, run)
    assert run.gradebook.is_file(), "the run's own gradebook should have been generated for the toy"
    with open(run.exports / "canvas" / "toy_canvas.csv", newline="", encoding="utf-8") as handle:
        rows = {row["Student"]: row for row in csv.DictReader(handle)}
    # The written answer waits for a person: no total before it is true (Canvas keeps what it has).
    assert rows["ada"]["toy"] == "", f"Canvas should get no total while the written answer waits: {rows}"
    for folder in ("gradescope-preview", "nbgrader", "feedback", "report"):
        assert any((run.exports / folder).iterdir()), f"no {folder} export in {run.exports}"
