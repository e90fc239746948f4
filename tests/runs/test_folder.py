"""A run folder's layout, spelled in one place (``runs.folder.Run``) and unchanged from the runs already on disk."""

from __future__ import annotations

from assignments.course import Course
from assignments.runs.folder import Run


def test_a_run_of_course_grade_keeps_the_nbgrader_door_in_its_nbgrader_folder(tmp_path):
    run = Run.at(tmp_path / "run")
    root = tmp_path / "run"
    assert (run.results, run.exports, run.intake, run.submissions, run.regrade_report) == (
        root / "results",
        root / "exports",
        root / "intake.json",
        root / "submissions",
        root / "regrade.json",
    )
    assert (run.nbgrader, run.course, run.gradebook, run.repair) == (
        root / "nbgrader",
        root / "nbgrader" / "course",
        root / "nbgrader" / "course" / "gradebook.db",
        root / "nbgrader" / "repair",
    )
    assert run.nbgrader_run.results == root / "nbgrader" / "results", "the nbgrader door's own records"
    assert run.db_url == f"sqlite:///{(root / 'nbgrader' / 'course').resolve() / 'gradebook.db'}"


def test_a_run_of_course_autograde_is_the_nbgrader_doors_folder(tmp_path):
    root = tmp_path / "run"
    (root / "course").mkdir(parents=True)
    assert Run.at(root).course == root / "nbgrader" / "course", "a course folder without a gradebook says nothing"
    (root / "course" / "gradebook.db").write_bytes(b"")
    found = Run.at(root)
    assert found == Run.autograde(root), "a gradebook at <run>/course marks a run of course autograde"
    assert (found.course, found.repair, found.results, found.standalone.results) == (
        root / "course",
        root / "repair",
        root / "results",
        root / "standalone" / "results",
    )


def test_the_terms_and_the_demos_runs_sit_where_the_readme_says(tmp_path):
    course = Course(tmp_path)
    hw = course.assignment("toy")
    assert Run.of_term(hw).root == tmp_path.resolve() / "grades" / "current" / "toy"
    assert Run.autograde_of_term(hw).course == hw.grades_dir / "nbgrader" / "course"
    assert Run.of_term(hw).similarity == hw.grades_dir / "similarity"
    assert Run.of_term(hw).repair_alone == hw.grades_dir / "repair", "course repair's default folder"


def test_another_results_or_exports_folder_keeps_the_rest_of_the_run(tmp_path):
    run = Run.of_results(tmp_path / "run" / "graded").with_exports(tmp_path / "out")
    assert (run.root, run.results, run.exports) == (tmp_path / "run", tmp_path / "run" / "graded", tmp_path / "out")
    assert run.intake == tmp_path / "run" / "intake.json"
