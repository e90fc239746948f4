"""Contract parameters: per signature parameter of the definitions a hidden test module grades, the values
its tests use, and why a parameter held at one value is held there.

Issue 33: a hidden suite that calls a function with one value of an argument the contract leaves open
cannot see a mistake that shows only at other values (a rate ignored, a batch of one). So each test module
lists them in ``CONTRACT_PARAMETERS`` (read by ``suite_tables``); one value needs a reason.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from assignments import notebooks
from assignments.course import Assignment
from assignments.grading.selftest.suite_tables import suite_texts, table_rows

CONTRACT_PARAMETERS = "CONTRACT_PARAMETERS"


@dataclass(frozen=True)
class ParameterRow:
    """One entry of a test module's ``CONTRACT_PARAMETERS``."""

    definition: str  # a graded definition (a function or a class), or Class.method
    parameter: str  # one of its signature parameters
    values: str  # the values the hidden tests use, separated by commas outside brackets
    reason: str  # why the parameter is held at one value, or "-" when the tests vary it (None in the module)

    @property
    def value_list(self) -> list[str]:
        """``values`` split at the commas that are not inside brackets or parentheses: "(3, 7), (1, 7)" is two."""
        parts, depth, current = [], 0, ""
        for char in self.values:
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
            elif char == "," and depth == 0:
                parts.append(current)
                current = ""
                continue
            current += char
        parts.append(current)
        return [part.strip() for part in parts if part.strip()]

    @property
    def varied(self) -> bool:
        return len(self.value_list) > 1


def contract_parameters(assignment: Assignment, texts: dict[str, str] | None = None) -> list[ParameterRow] | None:
    """The entries of the hidden test modules' ``CONTRACT_PARAMETERS`` (``texts`` as for ``behaviour_map``);
    None: no module has the table."""
    texts = suite_texts(assignment) if texts is None else texts
    rows, found = table_rows(texts, CONTRACT_PARAMETERS, 4)
    if not found:
        return None
    return [ParameterRow(d, p, v, "-" if reason is None else reason) for d, p, v, reason in rows]


def _parameter_names(function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    args = function.args
    names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
    return names[1:] if method and names else names


def graded_signatures(nb) -> dict[str, list[str]]:
    """Definition -> signature parameters, for every public function and class that an answer cell of
    ``nb`` defines (its solution, markers and all: they are comments). A class contributes its __init__
    and each public method, as ``Class`` (the union) and ``Class.method``."""
    found: dict[str, list[str]] = {}
    for cell in nb.cells:
        if cell.get("cell_type") != "code" or not notebooks.is_answer(cell):
            continue
        try:
            body = ast.parse(cell.source).body
        except SyntaxError:
            continue
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
                found[node.name] = _parameter_names(node, method=False)
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                union = []
                for member in node.body:
                    if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        continue
                    if member.name == "__init__" or not member.name.startswith("_"):
                        names = _parameter_names(member, method=True)
                        found[f"{node.name}.{member.name}"] = names
                        union += [n for n in names if n not in union]
                found[node.name] = union
    return found


def contract_parameter_problems(assignment: Assignment, rows: list[ParameterRow] | None = None) -> list[str]:
    """A missing table; a graded definition's signature parameter the table does not list; a row naming a
    definition no answer cell has; a parameter listed with no value, or with one value and no reason."""
    name = assignment.name
    rows = contract_parameters(assignment) if rows is None else rows
    if rows is None:
        return [f"{name}: no test module lists {CONTRACT_PARAMETERS} (autograder/README.md, Contract parameters)"]
    signatures = graded_signatures(assignment.source_notebook())
    problems = []
    for row in rows:
        where = f"{name} contract parameters, {row.definition} / {row.parameter}"
        if row.definition not in signatures:
            problems.append(f"{where}: no answer cell defines {row.definition}")
        if not row.value_list:
            problems.append(f"{where}: no values are listed")
        elif not row.varied and not re.search(r"\w", row.reason):
            problems.append(f"{where}: the hidden tests use one value ({row.values}) and no reason says why")
    listed = {(row.definition.split(".")[0], row.parameter) for row in rows}
    for definition, parameters in signatures.items():
        if "." in definition:
            continue
        missing = [p for p in parameters if (definition, p) not in listed]
        if missing:
            problems.append(
                f"{name} contract parameters: {definition}'s signature parameter(s) {', '.join(missing)} "
                f"not in the table (list the values the hidden tests use, or why one is enough)"
            )
    return problems


def parameter_lines(rows: list[ParameterRow]) -> list[str]:
    """What ``course selftest`` prints: the parameters varied, per definition, then each held fixed and why."""
    varied: dict[str, list[str]] = {}
    for row in rows:
        if row.varied:
            varied.setdefault(row.definition, []).append(row.parameter)
    fixed = [row for row in rows if not row.varied]
    lines = [f"contract parameters: {len(rows)} listed, {len(rows) - len(fixed)} varied, {len(fixed)} held fixed"]
    lines += [f"  varied  {definition}: {', '.join(names)}" for definition, names in varied.items()]
    lines += [f"  fixed   {row.definition}.{row.parameter} = {row.values}: {row.reason}" for row in fixed]
    return lines
