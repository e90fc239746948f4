"""Mutants graded from one run of the reference forked at each answer cell (``forking.grade_mutants``) get
the records that grading each mutated notebook from the start gives (``mutant_checks.grade_mutant``), on the toy
course; a mutant that does not apply, or whose grading process dies, is reported and the others go on."""

import pytest

from assignments.grading.selftest import forking, mutant_checks, mutation
from assignments.grading.selftest.mutation import MutantError
from tests.fixtures import toy

SCALES_ONCE_TOO_FEW = '''"""scale adds x one time too few.

question: scale_tests
replaces: scale
"""


def scale(x, k):
    out = x * 0
    for _ in range(k - 1):
        out = add(out, x)
    return out
'''

STALE = '''"""Names an answer cell the notebook does not have.

question: add_tests
replaces: subtract
"""


def subtract(a, b):
    return a - b
'''

# Kills the process that grades it as soon as a hidden test calls add: only that mutant's child dies.
DIES = '''"""add ends the process that runs it.

question: add_tests
replaces: add
"""


def add(a, b):
    import os
    import signal

    os.kill(os.getpid(), signal.SIGKILL)
'''


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    mutants = {"subtracts": toy.SUBTRACTS, "scales_once_too_few": SCALES_ONCE_TOO_FEW, "stale": STALE, "dies": DIES}
    return toy.build(tmp_path_factory.mktemp("toy-forking"), mutants=mutants)


def comparable(result):
    return result.scores(), sorted((f.code, f.message) for f in result.findings)


def test_forked_records_equal_records_graded_from_the_start(course):
    chosen = [m for m in mutation.mutants(course.assignment) if m.name in ("subtracts", "scales_once_too_few")]
    forked = dict(forking.grade_mutants(course.assignment, chosen))
    for mutant in chosen:
        assert not isinstance(forked[mutant], MutantError), f"{mutant.name} was not graded: {forked[mutant]}"
        assert comparable(forked[mutant]) == comparable(mutant_checks.grade_mutant(course.assignment, mutant)), (
            f"{mutant.name}: the forked grading's scores or findings differ from grading the mutated notebook "
            "from its first cell"
        )
        assert mutant_checks.mutant_problems(mutant, forked[mutant]) == [], (
            f"{mutant.name} is not caught on its question"
        )


def test_a_mutant_that_does_not_apply_or_kills_its_grader_is_reported_and_the_rest_are_graded(course):
    outcomes = {m.name: r for m, r in forking.grade_mutants(course.assignment, mutation.mutants(course.assignment))}
    assert set(outcomes) == {"subtracts", "scales_once_too_few", "stale", "dies"}, "every mutant gets an outcome"
    assert isinstance(outcomes["stale"], MutantError) and "no single answer cell" in str(outcomes["stale"])
    assert isinstance(outcomes["dies"], MutantError) and "SIGKILL" in str(outcomes["dies"]), (
        "a grading process that dies should be reported with the signal that ended it"
    )
    assert not isinstance(outcomes["scales_once_too_few"], MutantError), "a later mutant should still be graded"


def test_course_selftest_reports_each_mutant_caught_on_its_own_question(toy_with_mutant, capsys):
    """``course selftest``'s mutant lines come from the forked grading (it once called a function the
    checks module no longer had, and crashed before its first mutant)."""
    from assignments.grading.selftest.report import mutants_report

    problems = mutants_report(toy_with_mutant.assignment, [], only_mutants=["subtracts"], verbose=True)
    printed = capsys.readouterr().out
    assert problems == [], "the toy's subtracts mutant should be caught on add_tests only, with no problem"
    assert "subtracts: caught on add_tests only" in printed, "the self-test should print one line per mutant"
