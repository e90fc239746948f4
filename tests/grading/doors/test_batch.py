"""Class grading: parallel workers, one result file per student, idempotent, nothing lost.

The toy course's class (its reference, its blank release and a student with no notebook) goes through
``workflow.grade_class`` as a Canvas download, with the toy's grader in the batch's worker processes.
"""

import functools
import json
import zipfile

import pytest

from assignments.demo import students as demo_class
from assignments.grading.doors import batch
from assignments.grading.sandbox.limits import Limits
from assignments.results import table
from assignments.workflow import grade_class
from tests.fixtures import toy
from tests.fixtures.batch import grade_toy_job, limits_dict

# One worker runs this module (`--dist loadgroup`): its module fixture grades the class once, not per worker.
pytestmark = pytest.mark.xdist_group("batch")

LIMITS = limits_dict(Limits(cell_timeout=20, call_timeout=10, total_timeout=60, startup_timeout=60))


def without_timings(path):
    data = json.loads(path.read_text())
    data.pop("timings", None)
    data.pop("source_file", None)
    for question in data["questions"]:
        for test in question["tests"]:
            test.pop("seconds", None)
    for finding in data["findings"]:  # durations may appear in finding messages
        finding["message"] = "".join(ch for ch in finding["message"] if not ch.isdigit())
    return data


@pytest.fixture(scope="module")
def the_toy(tmp_path_factory):
    the_toy = toy.build(tmp_path_factory.mktemp("batch") / "toy")
    # a run's records name the grader's version, read from its course's project file
    (the_toy.folder / "pyproject.toml").write_text('[project]\nname = "toy"\nversion = "1.0"\n')
    return the_toy


@pytest.fixture(scope="module")
def class_folder(the_toy, tmp_path_factory):
    folder = tmp_path_factory.mktemp("download")
    students = {"reference": the_toy.reference(), "blank": the_toy.release}
    demo_class.write_canvas_zip(the_toy.assignment, students, folder / "canvas.zip")
    # A student who uploaded no notebook at all: only a PDF.
    with zipfile.ZipFile(folder / "canvas.zip", "a") as archive:
        archive.writestr("lateperson_LATE_1099_50099_report.pdf", b"%PDF-1.4 not a notebook")
    return folder / "canvas.zip"


@pytest.fixture(scope="module")
def two_gradings(the_toy, class_folder, tmp_path_factory):
    first = tmp_path_factory.mktemp("first")
    second = tmp_path_factory.mktemp("second")
    grader = functools.partial(grade_toy_job, str(the_toy.folder), LIMITS)
    return (
        grade_class(the_toy.assignment, class_folder, first, workers=2, grader=grader),
        first,
        grade_class(the_toy.assignment, class_folder, second, workers=1, grader=grader),
        second,
    )


def test_every_student_gets_a_result_file(two_gradings):
    results, out, _, _ = two_gradings
    students = {r.student for r in results}
    files = {p.stem for p in (out / "results").glob("*.json")}
    assert files == students and len(students) == 3, (files, students)


def test_reference_full_marks_and_blank_zero(two_gradings):
    results, _, _, _ = two_gradings
    graded = sorted((r.autograded_points, r.autograded_max) for r in results if r.status == "graded")
    assert len(graded) == 2, table.score_table(results)
    assert graded[0][0] == 0 and graded[1][0] == graded[1][1], table.score_table(results)


def test_student_without_a_notebook_is_recorded_not_dropped(two_gradings):
    results, _, _, _ = two_gradings
    missing = [r for r in results if any(f.code == "missing-notebook" for f in r.findings)]
    assert len(missing) == 1 and missing[0].autograded_points == 0


def test_grading_twice_gives_identical_records_apart_from_timings(two_gradings):
    _, first, _, second = two_gradings
    for path in sorted((first / "results").glob("*.json")):
        assert without_timings(path) == without_timings(second / "results" / path.name), path.name


def test_result_files_are_written_atomically(two_gradings):
    _, first, _, _ = two_gradings
    assert not list((first / "results").glob("*.tmp"))


def test_default_workers_is_the_number_of_cores():
    assert batch.default_workers() >= 1
