"""The course model (assignments/course.py) and the notebook format's marker rule (assignments/notebooks.py).

A toy course is built in a temporary folder the way tests everywhere build one: ``Course(tmp_path)``.
"""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from assignments import notebooks
from assignments.course import CATALOG, Course, default, points_report
from assignments.release import hygiene


def graded(grade_id: str, points: float, solution: bool = False) -> dict:
    return {
        "nbgrader": {
            "grade": True,
            "grade_id": grade_id,
            "locked": not solution,
            "points": points,
            "schema_version": 3,
            "solution": solution,
        }
    }


def write_notebook(path, cells) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nbformat.writes(new_notebook(cells=cells)))


def test_catalog_assignments_come_first_in_course_order_then_unknown_source_folders(tmp_path):
    course = Course(tmp_path)
    write_notebook(tmp_path / "source" / "zeta" / "zeta.ipynb", [])
    write_notebook(tmp_path / "source" / CATALOG[1].name / f"{CATALOG[1].name}.ipynb", [])
    assert course.names() == [entry.name for entry in CATALOG] + ["zeta"]
    assert course.present() == [CATALOG[1].name, "zeta"], "only folders with a notebook, catalog order first"
    assert course.assignment("zeta").title == "zeta" and not course.assignment("zeta").in_catalog


def test_an_assignment_knows_its_files_from_the_course_root(tmp_path):
    hw = Course(tmp_path).assignment("toy")
    root = tmp_path.resolve()
    assert hw.source_folder == root / "source" / "toy" and hw.suite_dir == root / "autograder" / "toy"
    assert hw.stand_ins_path == root / "autograder" / "toy" / "stand_ins.py"
    assert hw.solution_path == root / "solutions" / "toy" / "toy.ipynb"
    # Without a configured term the runs go to grades/current/; the demo has grades/demo/.
    assert hw.grades_dir == root / "grades" / "current" / "toy"
    assert hw.course.demo_dir == root / "grades" / "demo"


def test_questions_follow_the_source_notebook_when_it_changes(tmp_path):
    hw = Course(tmp_path).assignment("toy")
    path = tmp_path / "source" / "toy" / "toy.ipynb"
    write_notebook(
        path,
        [
            new_code_cell("x = 1", metadata=graded("a_tests", 2)),
            new_markdown_cell("why", metadata=graded("why", 1, solution=True)),
        ],
    )
    assert [(q.grade_id, q.points, q.kind) for q in hw.questions] == [
        ("a_tests", 2, "autograded"),
        ("why", 1, "manual"),
    ]
    assert hw.autograded_order == ["a_tests"] and hw.max_points("why") == 1 and hw.total_points == 3
    write_notebook(
        path,
        [new_code_cell("x = 1", metadata=graded("a_tests", 5)), new_code_cell("x = 2", metadata=graded("b_tests", 1))],
    )
    assert hw.autograded_order == ["a_tests", "b_tests"] and hw.total_points == 6, "a stale copy was kept"


def test_points_are_declared_once_and_a_split_that_disagrees_names_the_question_and_both_totals(tmp_path):
    """The cell's points are the truth; the hidden tests' @question points must split them exactly, and
    `course catalog`, `course hygiene` and `course release` all say so in the same words."""
    from assignments.release import hygiene_problems

    name = CATALOG[0].name
    write_notebook(
        tmp_path / "source" / name / f"{name}.ipynb",
        [
            new_code_cell("x = 1", metadata=graded("a_tests", 4)),
            new_markdown_cell("why", metadata=graded("why", 1, solution=True)),
        ],
    )
    suite = tmp_path / "autograder" / name
    suite.mkdir(parents=True)
    (suite / "test_a.py").write_text(
        "from assignments.grading.testkit.checks import question\n\n"
        "@question('a_tests', points=1)\ndef test_one(student):\n    pass\n\n"
        "@question('a_tests', points=2)\ndef test_two(student):\n    pass\n"
    )
    hw = Course(tmp_path).assignment(name)
    assert hw.total_points == 5, "the total is the cells' sum, typed nowhere"
    text, fine = points_report(hw)
    expected = (
        f"question a_tests: its test cell in source/{name}/{name}.ipynb gives 4 points, its hidden tests' "
        "@question(points=...) add up to 3"
    )
    assert not fine and expected in text
    assert any(expected in problem for problem in hygiene_problems(Course(tmp_path), [name]))
    (suite / "test_a.py").write_text((suite / "test_a.py").read_text().replace("points=2", "points=3"))
    text, fine = points_report(hw)
    assert fine, text


def test_tests_without_points_share_what_the_weighed_ones_leave_of_the_cell(tmp_path):
    """A points change is one edit, the cell's: tests without ``points=`` share the cell equally (a
    fraction is kept), weighed tests count first, and explicit points that leave the shared tests nothing
    are named like any other split that does not add up."""
    from assignments.points import shares, split_problems
    from tests.helpers import points_per_test

    assert shares(2, [None, None, None]) == [2 / 3] * 3
    assert shares(5, [2.0, None, None]) == [2.0, 1.5, 1.5]
    name = CATALOG[0].name
    write_notebook(
        tmp_path / "source" / name / f"{name}.ipynb", [new_code_cell("x = 1", metadata=graded("a_tests", 4))]
    )
    suite = tmp_path / "autograder" / name
    suite.mkdir(parents=True)
    plain = "@question('a_tests')\ndef test_{0}(student):\n    pass\n\n"
    (suite / "test_a.py").write_text(
        "from assignments.grading.testkit.checks import question\n\n"
        + "@question('a_tests', points=1)\ndef test_weighed(student):\n    pass\n\n"
        + "".join(plain.format(n) for n in ("one", "two", "three"))
    )
    hw = Course(tmp_path).assignment(name)
    assert split_problems(hw) == []
    assert points_per_test(hw) == {
        ("a_tests", "test_weighed"): 1.0,
        **{("a_tests", f"test_{n}"): 1.0 for n in ("one", "two", "three")},
    }
    (suite / "test_a.py").write_text((suite / "test_a.py").read_text().replace("points=1", "points=4"))
    [problem] = split_problems(hw)
    assert "add up to 4, which leaves nothing for its 3 test(s) without points" in problem, problem


def test_every_catalog_total_matches_its_source_notebook():
    for name in default().order:
        text, fine = points_report(default().assignment(name))
        assert fine, text


def test_a_marker_is_any_line_containing_the_delimiter_as_nbgrader_reads_it():
    assert notebooks.marker_in("    ### BEGIN SOLUTION") == "BEGIN SOLUTION"
    assert notebooks.marker_in("x = 'END SOLUTION'  # nbgrader drops this line") == "END SOLUTION"
    assert notebooks.marker_in("=== BEGIN MARK SCHEME ===") == "BEGIN MARK SCHEME"
    assert notebooks.marker_in("# begin solution") is None
    source = "def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n"
    assert notebooks.odd_marker_lines(source) == []
    assert notebooks.strip_region(source, *notebooks.SOLUTION) == "def f():\n"


def test_hygiene_refuses_a_marker_line_with_anything_else_on_it():
    cells = [
        new_code_cell(
            "def f():\n    ### BEGIN SOLUTION  (keep it short)\n    return 1\n    ### END SOLUTION",
            metadata={
                "nbgrader": {"grade": False, "grade_id": "f", "locked": False, "schema_version": 3, "solution": True}
            },
        )
    ]
    problems = [str(p) for p in hygiene.check_markers(cells, "toy.ipynb")]
    assert any("line 2" in p and "'### BEGIN SOLUTION'" in p for p in problems), problems


def test_student_text_drops_markers_and_the_mark_scheme():
    cell = new_markdown_cell(
        "Because it is linear.\n=== BEGIN MARK SCHEME ===\n1 point: linear\n=== END MARK SCHEME ==="
    )
    assert notebooks.student_text(cell) == "Because it is linear.\n"
    code = new_code_cell("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION")
    assert notebooks.student_text(code) == "def f():\n    return 1\n"


def test_course_help_speaks_to_instructors(capsys):
    """`course --help` describes the term's commands, not the module's design; defaults are values."""
    from assignments.cli import main

    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "grades/<term>/<assignment>/" in text and "make clean" in text
    assert "Every command is registered here" not in text and "cmd_" not in text
    with pytest.raises(SystemExit):
        main(["autograde", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 1800)" in text and "NOTEBOOK_TIMEOUT_S" not in text


def test_course_clean_keeps_every_terms_grades_unless_one_is_named(tmp_path):
    from assignments.cli import main

    for folder in ("grades/demo/toy", "grades/2026-autumn/toy", "grades/2025-spring/toy", "build/x", "dist/lms"):
        (tmp_path / folder).mkdir(parents=True)
    assert main(["clean", "--root", str(tmp_path)]) == 0
    assert sorted(p.name for p in (tmp_path / "grades").iterdir()) == ["2025-spring", "2026-autumn"]
    assert not (tmp_path / "build").exists() and not (tmp_path / "dist").exists()
    assert main(["clean", "--root", str(tmp_path), "--term", "2025-spring"]) == 0
    assert sorted(p.name for p in (tmp_path / "grades").iterdir()) == ["2026-autumn"]
    assert main(["clean", "--root", str(tmp_path), "--term", "../.."]) == 2 and (tmp_path / "grades").is_dir()
