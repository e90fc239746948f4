"""Grading the mutants: each must lose points on its own question only, and every hidden test must fail for
at least one of them.

A mutant (``mutation``: one known mistake, applied to the reference's answer cell it replaces) is graded in
process; its record also says whether the visible check below its TODO failed (``visible_checks``). The
behaviour map (``behaviour_rows``) says which test is meant to catch which mutant; a failure it does not
pair is a warning (``misleading_failures``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from assignments import notebooks
from assignments.course import Assignment
from assignments.grading.doors.inprocess import execute_cells, grade_namespace
from assignments.grading.selftest.behaviour_rows import BehaviourRow
from assignments.grading.selftest.mutation import Mutant, MutantError
from assignments.grading.selftest.reference import reference_notebook
from assignments.grading.selftest.visible_checks import contract_problems, visible_check
from assignments.results.model import SubmissionResult


def apply_mutant(nb, mutant: Mutant):
    """A copy of ``nb`` whose answer cell ``mutant.replaces`` is that cell with the mutant's definitions
    swapped in (MutantError, a ValueError, when they no longer apply)."""
    mutated = copy.deepcopy(nb)
    targets = [c for c in mutated.cells if notebooks.grade_id(c) == mutant.replaces and notebooks.is_answer(c)]
    if len(targets) != 1:
        raise MutantError(f"{mutant.label}: no single answer cell with grade_id {mutant.replaces!r}")
    targets[0].source = mutant.apply_to(targets[0].source)
    return mutated


def grade_mutant(assignment: Assignment, mutant: Mutant) -> SubmissionResult:
    """The reference notebook with the mutant applied, graded in-process (MutantError if it no longer
    applies). The notebook runs once: its visible check (``visible_check``) runs on the executed namespace
    before the hidden suite, and its outcome is the record's ``visible-check`` finding."""
    nb = apply_mutant(reference_notebook(assignment), mutant)
    namespace, findings = execute_cells(nb)
    check = visible_check(nb, mutant.replaces, namespace)
    result = grade_namespace(assignment, namespace, findings, mutant.name)
    result.findings.append(check)
    return result


def mutant_problems(mutant: Mutant, result: SubmissionResult, whole: bool = True) -> list[str]:
    """What is wrong with a mutant's grading: full marks on its own question, or points lost on another
    (``whole=False``: the record holds the mutant's own question alone, so only that is checked)."""
    problems = []
    for q in result.questions:
        if q.kind != "autograded" or not (whole or q.grade_id == mutant.question):
            continue
        if q.grade_id == mutant.question and q.points >= q.max_points:
            problems.append(f"mutant {mutant.name} ({mutant.mistake}) kept full marks on {q.grade_id}")
        if q.grade_id != mutant.question and q.points != q.max_points:
            failed = "; ".join(f"{t.name}: {t.message}" for t in q.tests if t.outcome != "passed")
            problems.append(
                f"mutant {mutant.name} lost points on {q.grade_id}, not its own question {mutant.question}: {failed}"
            )
    return problems


def check_mutant(assignment: Assignment, mutant: Mutant) -> list[str]:
    try:
        result = grade_mutant(assignment, mutant)
    except MutantError as error:
        return [str(error)]
    return mutant_problems(mutant, result) + contract_problems(mutant, result)


def failed_tests(mutant: Mutant, result: SubmissionResult) -> list[tuple[str, str]]:
    """(test, message) of every test the mutant failed on its own question."""
    return [
        (t.name, t.message)
        for q in result.questions
        if q.grade_id == mutant.question
        for t in q.tests
        if t.outcome != "passed"
    ]


def misleading_failures(mutant: Mutant, result: SubmissionResult, rows: list[BehaviourRow]) -> list[str]:
    """Tests of the mutant's question that it fails although no behaviour-map row pairs them with it.

    The judgement: the behaviour map is where an author says which hidden test is meant to catch which
    mutant, and so which message fits that mistake. Any other failing test of the same question also shows
    the student its message, which describes the mistake that test was written for; so it is reported, as
    a warning, for a person to read. Pair the test with the mutant in the map when its message fits too.
    A mutant that no row names cannot be judged, and says so."""
    meant = {row.test for row in rows if row.mutant == mutant.name}
    if not meant:
        return [f"{mutant.name}: no behaviour-map row names this mutant, so its extra failures are not judged"]
    return [
        f"{mutant.name} also fails {test}, which no map row pairs with it; its message may point at another "
        f"mistake: {message.splitlines()[0] if message else '(no message)'}"
        for test, message in failed_tests(mutant, result)
        if test not in meant
    ]


def uncaught_tests(results: Iterable[SubmissionResult]) -> list[str]:
    """``question::test`` of every hidden test that passed in all of ``results`` (an assignment's mutants,
    graded): no mutant shows that the test can fail, so it may check nothing."""
    seen, caught = set(), set()
    for result in results:
        for q in result.questions:
            for t in q.tests:
                seen.add(f"{q.grade_id}::{t.name}")
                if t.outcome != "passed":
                    caught.add(f"{q.grade_id}::{t.name}")
    return sorted(seen - caught)
