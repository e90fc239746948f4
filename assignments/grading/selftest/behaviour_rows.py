"""The behaviour map: per graded definition, which behaviours beyond eval-mode outputs a hidden test checks
(and which mutant shows it can fail), or why a behaviour is out of scope.

Its rows sit in the hidden test modules, beside the tests (``suite_tables``): each ``@behaviour`` decorator
on a test, and each module's ``OUT_OF_SCOPE`` entries.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from assignments.course import Assignment
from assignments.grading.selftest.kinds import KINDS
from assignments.grading.selftest.mutation import mutants
from assignments.grading.selftest.suite_tables import suite_texts, table_rows


@dataclass(frozen=True)
class BehaviourRow:
    """One row of an assignment's behaviour map: a ``@behaviour`` on a hidden test, or an entry of a test
    module's ``OUT_OF_SCOPE``."""

    definition: str
    behaviour: str
    test: str  # a hidden test's function name, or "-" when the behaviour is out of scope
    mutant: str  # the mutant's file stem when ``test`` is named, else one sentence: why out of scope
    kind: str = ""  # one of ``kinds.KINDS`` when the row answers for one of them, else ""

    @property
    def in_scope(self) -> bool:
        return self.test != "-"


BEHAVIOUR_DECORATOR = "behaviour"


OUT_OF_SCOPE = "OUT_OF_SCOPE"


def _decorator_name(node: ast.AST) -> str:
    func = node.func if isinstance(node, ast.Call) else node
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def behaviour_map(assignment: Assignment, texts: dict[str, str] | None = None) -> list[BehaviourRow] | None:
    """The rows of the assignment's behaviour map, from its hidden test modules (``texts``: file name ->
    text, read from the suite when not given): each ``@behaviour(definition, behaviour, mutant=stem)`` on a
    test, then each module's ``OUT_OF_SCOPE`` entries (definition, behaviour, reason). None: no row at all."""
    texts = suite_texts(assignment) if texts is None else texts
    rows = []
    for name, text in texts.items():
        for node in ast.parse(text, name).body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for decorator in node.decorator_list:
                if not (isinstance(decorator, ast.Call) and _decorator_name(decorator) == BEHAVIOUR_DECORATOR):
                    continue
                try:
                    given = [ast.literal_eval(arg) for arg in decorator.args]
                    given += [ast.literal_eval(k.value) for k in decorator.keywords if k.arg == "mutant"]
                    kind = [ast.literal_eval(k.value) for k in decorator.keywords if k.arg == "kind"]
                except ValueError:
                    given, kind = [], []
                if len(given) != 3 or not all(isinstance(value, str) for value in [*given, *kind]):
                    raise ValueError(f"{name}: {node.name}: @behaviour needs three literal strings (and kind=)")
                definition, behaviour, mutant = given
                rows.append(BehaviourRow(definition, behaviour, node.name, mutant, *kind))
    # An entry is (definition, behaviour, why out of scope) or, for a row that answers for a kind, the kind
    # as a fourth field.
    out_of_scope, listed = table_rows(texts, OUT_OF_SCOPE, 3, 4)
    rows += [BehaviourRow(entry[0], entry[1], "-", *entry[2:]) for entry in out_of_scope]
    return rows if rows or listed else None


def hidden_test_names(assignment: Assignment) -> set[str]:
    """Names of the module-level ``test_*`` functions of the assignment's hidden suite."""
    names = set()
    for path in assignment.suite_dir.glob("test_*.py"):
        names |= {
            node.name
            for node in ast.parse(path.read_text()).body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
        }
    return names


def behaviour_map_problems(assignment: Assignment, rows: list[BehaviourRow] | None = None) -> list[str]:
    """A missing map, rows naming a hidden test or mutant that does not exist, out-of-scope rows with no reason."""
    name = assignment.name
    rows = behaviour_map(assignment) if rows is None else rows
    if rows is None:
        return [
            f"{name}: no behaviour map: no hidden test carries @behaviour(...) and no test module has "
            f"{OUT_OF_SCOPE} (autograder/README.md, Behaviour maps)"
        ]
    tests = hidden_test_names(assignment)
    stems = {m.name for m in mutants(assignment)}
    problems = []
    for row in rows:
        where = f"{name} behaviour map, {row.definition} / {row.behaviour}"
        if row.in_scope:
            if row.test not in tests:
                problems.append(f"{where}: no hidden test {row.test}")
            if row.mutant not in stems:
                problems.append(f"{where}: no mutant {row.mutant} (autograder/{name}/mutants/)")
        elif not re.search(r"\w", row.mutant):
            problems.append(f"{where}: out of scope, but no reason is given")
        if row.kind and row.kind not in KINDS:
            problems.append(f"{where}: kind {row.kind!r} is not one of {', '.join(KINDS)}")
    return problems


def coverage_line(rows: list[BehaviourRow]) -> str:
    tested = sum(row.in_scope for row in rows)
    return f"behaviour map: {len(rows)} rows, {tested} with a hidden test, {len(rows) - tested} out of scope"
