"""Mutation testing of the autograder: does each hidden suite reward the reference and catch mistakes?

A mutant is ``autograder/<assignment>/mutants/<name>.py``: a docstring that describes one mistake as a
student would make it and names the question it must cost points on and the answer cell it replaces,
then only the definitions the mistake changes (``mutants.py`` says how they replace the solution's)::

    \"\"\"Divides the attention scores by d_k instead of sqrt(d_k).

    question: scaled_dot_product_tests
    replaces: scaled_dot_product
    \"\"\"


    def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
        ...

The mutated answer cell is the current solution cell of ``replaces`` with those definitions swapped in.
This module also checks the stand-ins (``autograder/<assignment>/stand_ins.py``) against the notebook.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable

from .. import notebooks
from ..course import resolve
from .handle import extract_definitions, stand_in_source
from .inprocess import execute_cells, grade_namespace, grade_notebook
from .mutation import (Mutant, MutantError, definitions, load_folder, load_mutant, same_definition,  # noqa: F401
                      solution_cell, without_definitions)
from ..results.model import SubmissionResult


def mutants(assignment: str) -> list[Mutant]:
    return load_folder(resolve(assignment).mutants_dir, assignment)


def shortcut_answers(assignment: str) -> list[Mutant]:
    """``autograder/<assignment>/shortcuts/*.py``: answers, in the mutants' format, that pass the hidden
    tests by using a library call their question forbids (the shortcut check must flag each on its
    ``question``; they are not mutants: they keep full marks unless the question's penalty says zero)."""
    return load_folder(resolve(assignment).shortcuts_dir, assignment)


def reference_notebook(assignment: str):
    """The source notebook: answer cells hold the solution; hidden tests sit in cells never executed."""
    return resolve(assignment).source_notebook()


def apply_mutant(nb, mutant: Mutant):
    """A copy of ``nb`` whose answer cell ``mutant.replaces`` is that cell with the mutant's definitions
    swapped in (MutantError, a ValueError, when they no longer apply)."""
    mutated = copy.deepcopy(nb)
    targets = [c for c in mutated.cells if notebooks.grade_id(c) == mutant.replaces and notebooks.is_answer(c)]
    if len(targets) != 1:
        raise MutantError(f"{mutant.label}: no single answer cell with grade_id {mutant.replaces!r}")
    targets[0].source = mutant.apply_to(targets[0].source)
    return mutated


def full_marks_problems(result: SubmissionResult, label: str) -> list[str]:
    problems = [f"{label}: suite problem: {f.message}" for f in result.findings if f.code == "suite-problem"]
    problems += [f"{label}: notebook cell failed: {f.message}" for f in result.findings if f.code == "cell-error"]
    for q in result.questions:
        if q.kind == "autograded" and q.points != q.max_points:
            failed = "; ".join(f"{t.name}: {t.message}" for t in q.tests if t.outcome != "passed")
            problems.append(f"{label}: {q.grade_id} scored {q.points}/{q.max_points} ({failed or 'no tests ran'})")
    return problems


def check_reference(assignment: str, seeds=(0,)) -> list[str]:
    """Grade the reference once per seed (the notebook runs once; each seed is a full grading)."""
    namespace, findings = execute_cells(reference_notebook(assignment))
    problems = []
    for seed in seeds:
        result = grade_namespace(assignment, namespace, findings, "reference", seed=seed)
        problems += full_marks_problems(result, f"reference (seed {seed})")
    return problems


def blank_notebook(assignment: str):
    """What students receive, made from the source by nbgrader's own preprocessors (no release/ needed)."""
    return notebooks.blank_notebook(resolve(assignment).source_notebook())


def check_blank(assignment: str) -> list[str]:
    result = grade_notebook(assignment, blank_notebook(assignment), "blank")
    return [f"blank release: {q.grade_id} scored {q.points}/{q.max_points}"
            for q in result.questions if q.kind == "autograded" and q.points]


def grade_mutant(assignment: str, mutant: Mutant) -> SubmissionResult:
    """The reference notebook with the mutant applied, graded in-process (MutantError if it no longer applies)."""
    return grade_notebook(assignment, apply_mutant(reference_notebook(assignment), mutant), mutant.name)


def mutant_problems(mutant: Mutant, result: SubmissionResult) -> list[str]:
    """What is wrong with a mutant's grading: full marks on its own question, or points lost on another."""
    problems = []
    for q in result.questions:
        if q.kind != "autograded":
            continue
        if q.grade_id == mutant.question and q.points >= q.max_points:
            problems.append(f"mutant {mutant.name} ({mutant.mistake}) kept full marks on {q.grade_id}")
        if q.grade_id != mutant.question and q.points != q.max_points:
            failed = "; ".join(f"{t.name}: {t.message}" for t in q.tests if t.outcome != "passed")
            problems.append(f"mutant {mutant.name} lost points on {q.grade_id}, not its own question "
                            f"{mutant.question}: {failed}")
    return problems


def check_mutant(assignment: str, mutant: Mutant) -> list[str]:
    try:
        result = grade_mutant(assignment, mutant)
    except MutantError as error:
        return [str(error)]
    return mutant_problems(mutant, result)


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


# ---------------------------------------------------------------------------------------- stand-ins
# Policy: every definition in autograder/<assignment>/stand_ins.py equals (syntax trees compared, docstrings,
# comments and formatting aside) the source notebook's definition of the same name: the solution's when an
# answer cell defines it, else the provided cell's. A stand-in that must differ is listed here with the
# reason; the check fails when a listed stand-in no longer differs, so the list cannot go stale.
STAND_IN_EXCEPTIONS: dict[tuple[str, str], str] = {}


def notebook_definitions(nb) -> dict[str, list[tuple[str, ast.AST]]]:
    """name -> [(cell label, definition)] over the answer cells' solutions or, for a name no answer cell
    defines, the provided code cells (hidden test cells never run, so never count)."""
    answers, provided = {}, {}
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code" or notebooks.is_autograded_test(cell):
            continue
        label = f"{'answer' if notebooks.is_answer(cell) else 'provided'} cell {notebooks.grade_id(cell) or index}"
        try:
            found = definitions(ast.parse(cell.source).body)
        except SyntaxError:
            continue
        for name, node in found.items():
            (answers if notebooks.is_answer(cell) else provided).setdefault(name, []).append((label, node))
    return {**provided, **answers}


def stand_in_problems(assignment: str, source: str | None = None,
                      exceptions: dict[tuple[str, str], str] | None = None) -> list[str]:
    """Stand-ins (``source``: stand_ins.py's text) that differ from the notebook's definition of the same
    name, and stale ``exceptions`` (default STAND_IN_EXCEPTIONS); see the policy above."""
    source = stand_in_source(assignment) if source is None else source
    exceptions = STAND_IN_EXCEPTIONS if exceptions is None else exceptions
    ours = definitions(ast.parse(source).body)
    theirs = notebook_definitions(reference_notebook(assignment))
    problems = []
    for name, node in ours.items():
        excepted = exceptions.get((assignment, name))
        if name not in theirs:
            problems.append(f"{assignment}: stand-in {name} is defined by no cell of the source notebook")
            continue
        differs = [label for label, other in theirs[name] if not same_definition(node, other)]
        if differs and not excepted:
            problems.append(f"{assignment}: stand-in {name} differs from the definition in {', '.join(differs)}; "
                            f"copy the notebook's (docstrings and comments may differ)")
        if excepted and not differs:
            problems.append(f"{assignment}: stand-in {name} now equals the notebook's; remove its exception")
    problems += [f"{assignment}: exception for {name}, which stand_ins.py does not define"
                 for (a, name) in exceptions if a == assignment and name not in ours]
    return problems


def stand_in_notebook(assignment: str) -> tuple[object, list[str]]:
    """(notebook, names): the source notebook answered by stand_ins.py. In each answer cell the definitions
    stand_ins.py also has are replaced by exactly what a stand-in call runs (``extract_definitions``: the
    stand-ins' imports, those definitions and the stand-ins they use); the cell's other definitions stay."""
    source = stand_in_source(assignment)
    offered = definitions(ast.parse(source).body)
    nb = copy.deepcopy(reference_notebook(assignment))
    replaced = []
    for cell in nb.cells:
        if cell.get("cell_type") != "code" or not notebooks.is_answer(cell):
            continue
        names = [name for name in definitions(ast.parse(cell.source).body) if name in offered]
        if names:
            rest = without_definitions(cell.source, names)
            cell.source = extract_definitions(source, names) + ("\n\n" + rest if rest.strip() else "")
            replaced += names
    return nb, replaced


def check_stand_ins(assignment: str) -> list[str]:
    """Grade stand_ins.py as a student (``stand_in_notebook``): it must score full marks."""
    nb, replaced = stand_in_notebook(assignment)
    if not replaced:
        return []
    return full_marks_problems(grade_notebook(assignment, nb, "stand-ins"), "stand-ins as a student")
