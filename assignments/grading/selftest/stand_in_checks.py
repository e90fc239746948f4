"""The stand-ins (``autograder/<assignment>/stand_ins.py``) against the source notebook.

Policy: every definition in stand_ins.py equals (syntax trees compared, docstrings, comments and formatting
aside) the source notebook's definition of the same name: the solution's when an answer cell defines it,
else the provided cell's. A stand-in that must differ is listed in ``STAND_IN_EXCEPTIONS`` with the reason;
the check fails when a listed stand-in no longer differs, so the list cannot go stale. And stand_ins.py,
graded as a student, must score full marks (``check_stand_ins``).
"""

from __future__ import annotations

import ast
import copy

from assignments import notebooks
from assignments.course import Assignment
from assignments.grading.doors.inprocess import grade_notebook
from assignments.grading.selftest.mutation import definitions, same_definition, without_definitions
from assignments.grading.selftest.reference import full_marks_problems, reference_notebook
from assignments.grading.testkit.stand_ins import extract_definitions, stand_in_source

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


def stand_in_problems(
    assignment: Assignment, source: str | None = None, exceptions: dict[tuple[str, str], str] | None = None
) -> list[str]:
    """Stand-ins (``source``: stand_ins.py's text) that differ from the notebook's definition of the same
    name, and stale ``exceptions`` (default STAND_IN_EXCEPTIONS); see the policy above."""
    named = assignment.name
    source = stand_in_source(assignment) if source is None else source
    exceptions = STAND_IN_EXCEPTIONS if exceptions is None else exceptions
    ours = definitions(ast.parse(source).body)
    theirs = notebook_definitions(reference_notebook(assignment))
    problems = []
    for name, node in ours.items():
        excepted = exceptions.get((named, name))
        if name not in theirs:
            problems.append(f"{named}: stand-in {name} is defined by no cell of the source notebook")
            continue
        differs = [label for label, other in theirs[name] if not same_definition(node, other)]
        if differs and not excepted:
            problems.append(
                f"{named}: stand-in {name} differs from the definition in {', '.join(differs)}; "
                f"copy the notebook's (docstrings and comments may differ)"
            )
        if excepted and not differs:
            problems.append(f"{named}: stand-in {name} now equals the notebook's; remove its exception")
    problems += [
        f"{named}: exception for {name}, which stand_ins.py does not define"
        for (a, name) in exceptions
        if a == named and name not in ours
    ]
    return problems


def stand_in_notebook(assignment: Assignment) -> tuple[object, list[str]]:
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


def check_stand_ins(assignment: Assignment) -> list[str]:
    """Grade stand_ins.py as a student (``stand_in_notebook``): it must score full marks."""
    nb, replaced = stand_in_notebook(assignment)
    if not replaced:
        return []
    return full_marks_problems(grade_notebook(assignment, nb, "stand-ins"), "stand-ins as a student")
