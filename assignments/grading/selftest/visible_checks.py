"""The visible check below each TODO, run on a graded mutant.

A mutant whose mistake breaks a rule the skeleton states carries a ``contract: <the rule>`` line: the
visible check below its TODO (the autograded test cell right after its answer cell, hidden region cut out)
must already fail on it, so no student loses points for a rule they could not see (``contract_problems``).
"""

from __future__ import annotations

import nbformat

from assignments import notebooks
from assignments.grading.doors.inprocess import execute_cells
from assignments.grading.selftest.mutation import Mutant
from assignments.results.model import Finding, SubmissionResult

VISIBLE_CHECK = "visible-check"  # the finding's code; its message is "passed" or "failed: <why>"


def visible_check_cell(nb, replaces: str):
    """The autograded test cell right below answer cell ``replaces`` (the check a student runs after that
    TODO), or None when the next graded cell is another answer."""
    cells = nb.cells
    start = next(i for i, c in enumerate(cells) if notebooks.grade_id(c) == replaces and notebooks.is_answer(c))
    for cell in cells[start + 1 :]:
        if notebooks.is_autograded_test(cell):
            return cell
        if notebooks.is_answer(cell):
            return None
    return None


def visible_check(nb, replaces: str, namespace: dict) -> Finding:
    """Run the visible part of the test cell below ``replaces`` (its hidden region cut out, as students
    have it) on a copy of an executed ``namespace``; a Finding that says whether it passed."""
    cell = visible_check_cell(nb, replaces)
    if cell is None:
        return Finding(VISIBLE_CHECK, "failed: no visible check below this answer cell", "info", replaces)
    visible = notebooks.strip_region(cell.source, *notebooks.HIDDEN_TESTS)
    _, failures = execute_cells(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(visible)]), dict(namespace))
    outcome = "passed" if not failures else "failed: " + failures[0].message.split(" raised ", 1)[-1]
    return Finding(VISIBLE_CHECK, outcome, "info", notebooks.grade_id(cell))


def visible_check_failed(result: SubmissionResult) -> bool | None:
    """Whether the graded mutant's visible check failed (None: it was not run)."""
    found = [f for f in result.findings if f.code == VISIBLE_CHECK]
    return None if not found else found[0].message.startswith("failed")


def contract_problems(mutant: Mutant, result: SubmissionResult) -> list[str]:
    """A mutant marked ``contract:`` whose visible check passes: a student loses points for a rule that
    nothing before submission flags."""
    if mutant.contract and visible_check_failed(result) is False:
        return [
            f"mutant {mutant.name} breaks a contract rule ({mutant.contract}) but the visible check below "
            f"{mutant.replaces} passes: state the rule there, or make the check flag it"
        ]
    return []
