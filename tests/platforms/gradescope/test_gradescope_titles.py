"""Gradescope names each test by the question's notebook heading, as Canvas and the feedback do (issue #36).

The bundle has no source notebook: its grading manifest carries each question's heading, the grader records
the question's title in the result, and results.json uses it. The toy course's bundle, one reference upload
graded in this process (no setup.sh: the bundle's own copy of the course is what is read).
"""

from __future__ import annotations

import json
import shutil

import nbformat

from assignments.course import REPO, Course
from assignments.grading.doors.standalone import grade_submission
from assignments.platforms.gradescope import bundle as gradescope_bundle
from assignments.platforms.gradescope import runner as gradescope_runner
from assignments.titles import question_titles
from tests.fixtures import toy
from tests.fixtures.gradescope_tree import check_results_schema, unpack


def test_a_gradescope_run_names_each_test_by_the_notebook_heading(tmp_path):
    the_toy = toy.build(tmp_path / "course")
    shutil.copy(REPO / "pyproject.toml", the_toy.folder / "pyproject.toml")  # the bundle needs the course's
    root = tmp_path / "autograder"
    unpack(gradescope_bundle.build_autograder_zip(the_toy.assignment, tmp_path / "toy.zip"), root)
    bundled = Course(root / "source").assignment(toy.NAME)
    assert not list(bundled.source_folder.glob("*.ipynb")), "the bundle should carry no source notebook"
    expected = question_titles(the_toy.assignment.questions)  # from the notebook itself
    assert expected["add_tests"] == "Toy assignment · Add", expected
    upload = tmp_path / "submission"
    upload.mkdir()
    (upload / f"{toy.NAME}.ipynb").write_text(nbformat.writes(the_toy.reference()), encoding="utf-8")
    (tmp_path / "submission_metadata.json").write_text(json.dumps({"users": [{"email": "ada@example.org"}]}))

    def grade(assignment, path, student):
        return grade_submission(bundled, path, student, **the_toy.overrides())

    data = gradescope_runner.run(bundled, upload, tmp_path / "results.json", grade=grade)
    check_results_schema(data)
    assert data["tests"], f"nothing was graded:\n{data.get('output')}"
    for test in data["tests"]:
        (grade_id,) = test["tags"]
        assert test["name"].startswith(expected[grade_id] + ": "), (
            f"test {test['name']!r} of {grade_id} should begin with the notebook's title {expected[grade_id]!r}"
        )
