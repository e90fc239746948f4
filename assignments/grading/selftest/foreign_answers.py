"""The traced reference: no question's hidden tests may run code defined in another question's answer cell.

Such a test would cost a student points twice for one mistake; its question must ask for that definition
as a stand-in. Tracing the reference shows it for every possible mutant of that cell, where grading mutants
on the whole suite shows it only for the mutants written.
"""

from __future__ import annotations

import sys
from unittest import mock

from assignments import notebooks
from assignments.course import Assignment
from assignments.grading.doors.inprocess import execute_cells, grade_namespace
from assignments.grading.selftest.reference import full_marks_problems, reference_notebook
from assignments.grading.testkit.handle import LocalHandle


def answer_questions(nb) -> dict[str, str]:
    """Each answer cell's grade_id -> the question it answers: the first autograded test cell after it (the
    rule ``testkit.handle.answered_by`` gives its definitions)."""
    owners, pending = {}, []
    for cell in (c for c in nb.cells if c.get("cell_type") == "code"):
        if notebooks.is_autograded_test(cell):
            owners.update(dict.fromkeys(pending, notebooks.grade_id(cell)))
            pending = []
        elif notebooks.is_answer(cell):
            pending.append(notebooks.grade_id(cell))
    return owners


def foreign_answer_problems(assignment: Assignment) -> list[str]:
    """Grade the reference in process with a profiler on every snippet a hidden test runs, and report each
    question whose tests ran code defined in another question's answer cell (the code in-process grading
    compiles as ``<cell grade_id>``). Such a test would cost a student points twice for one mistake: its
    question must ask for that definition as a stand-in. Holds for every possible mutant of that cell, where
    grading mutants on the whole suite shows it only for the mutants written."""
    nb = reference_notebook(assignment)
    owner = answer_questions(nb)
    namespace, findings = execute_cells(nb)
    ran: dict[str, set[str]] = {}
    current: list[str | None] = [None]

    def profile(frame, event, _arg):
        name = frame.f_code.co_filename
        if event == "call" and current[0] and name.startswith("<cell ") and name[6:-1] in owner:
            ran.setdefault(current[0], set()).add(name[6:-1])

    original = LocalHandle._run

    def traced(self, *args, **kwargs):
        current[0] = self.question
        sys.setprofile(profile)
        try:
            return original(self, *args, **kwargs)
        finally:
            sys.setprofile(None)
            current[0] = None

    with mock.patch.object(LocalHandle, "_run", traced):
        result = grade_namespace(assignment, namespace, findings, "reference (traced)")
    problems = full_marks_problems(result, f"{assignment.name}: the traced reference")
    for question, cells in sorted(ran.items()):
        problems += [
            f"{assignment.name}: the tests of {question} ran code of answer cell {cell} ({owner[cell]}'s): "
            f"list its definitions in those tests' stand_ins"
            for cell in sorted(cells)
            if owner[cell] != question
        ]
    return problems
