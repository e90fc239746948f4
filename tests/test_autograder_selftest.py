"""The autograder tested like a product: reference full marks, blank zero, every mutant caught.

Grading here is in-process (``assignments.grading.inprocess``): the notebooks are our own, and a kernel
per mutant would cost minutes. The same suites run behind both real doors in test_standalone*.py and
test_nbgrader_door.py, which check that the doors agree with this path.
"""

import pytest

from assignments.course import default
from assignments import notebooks
from assignments.grading import selftest

ASSIGNMENTS = default().present()
MUTANTS = [(a, m) for a in ASSIGNMENTS for m in selftest.mutants(a)]
REPEATS = 10


def test_every_assignment_has_a_suite_and_mutants():
    for assignment in ASSIGNMENTS:
        assert list((default().autograder_dir / assignment).glob("test_*.py")), f"{assignment} has no hidden tests"
        assert selftest.mutants(assignment), f"{assignment} has no mutants"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_reference_scores_full_marks_on_ten_gradings(assignment):
    problems = selftest.check_reference(assignment, seeds=range(REPEATS))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_blank_release_scores_zero(assignment):
    problems = selftest.check_blank(assignment)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("assignment,mutant", MUTANTS, ids=[f"{a}-{m.name}" for a, m in MUTANTS])
def test_mutant_loses_points_on_its_own_question_only(assignment, mutant):
    problems = selftest.check_mutant(assignment, mutant)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_question_has_tests_whose_points_add_up_to_the_cell(assignment):
    """A question's tests are worth exactly its cell's points: no test can be worth more than the cell."""
    import ast

    declared = {}
    for path in (default().autograder_dir / assignment).glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "question":
                grade_id = node.args[0].value
                points = next(k.value.value for k in node.keywords if k.arg == "points")
                declared[grade_id] = declared.get(grade_id, 0) + points
    cells = {q.grade_id: q.points for q in default().assignment(assignment).questions
             if q.kind == "autograded"}
    assert declared == cells, f"test points per question {declared} differ from the notebook's {cells}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_autograded_question_has_a_mutant(assignment):
    covered = {m.question for m in selftest.mutants(assignment)}
    questions = {q.grade_id for q in default().assignment(assignment).questions
                 if q.kind == "autograded"}
    assert questions <= covered, f"questions no mutant checks: {sorted(questions - covered)}"
