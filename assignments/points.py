"""Points are declared once: in the source notebook's graded cells (nbgrader's ``points``).

Everything else follows from them or is checked against them:

- a question's hidden tests split its points with ``@question("<grade_id>", points=N)``; the split must
  add up to the cell's points exactly (otherwise nbgrader's validate reports only "Partial credit", and
  the standalone door caps or never reaches full marks), so ``course hygiene`` and ``course release``
  check it here, naming the question and both totals;
- an assignment's total (the LMS's "points possible", ``course catalog``) is the sum of its cells.

The decorators are read statically (``ast``): no test module is imported, so the check is cheap and
needs no torch. A decorator whose grade_id or points is not a literal is reported, not guessed.
"""

from __future__ import annotations

import ast
from pathlib import Path


def test_points(suite_dir: Path) -> tuple[dict[str, float], list[str]]:
    """grade_id -> the sum of its hidden tests' ``@question`` points, and what could not be read."""
    declared: dict[str, float] = {}
    problems = []
    for path in sorted(Path(suite_dir).glob("test_*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except SyntaxError as error:
            problems.append(f"{path.name}: cannot be read for its points ({error.msg}, line {error.lineno})")
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for decorator in node.decorator_list:
                if not (isinstance(decorator, ast.Call) and _name(decorator.func) == "question"):
                    continue
                try:
                    grade_id = ast.literal_eval(decorator.args[0])
                    points = float(ast.literal_eval(next(k.value for k in decorator.keywords if k.arg == "points")))
                except (IndexError, StopIteration, ValueError, TypeError):
                    problems.append(f"{path.name}: {node.name}: @question needs a literal grade_id and points=N")
                    continue
                declared[grade_id] = declared.get(grade_id, 0.0) + points
    return declared, problems


def _name(func) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def split_problems(assignment) -> list[str]:
    """Where ``assignment``'s hidden tests do not split each autograded cell's points exactly."""
    suite = assignment.suite_dir
    if not suite.is_dir():
        return []
    declared, problems = test_points(suite)
    where = assignment.course.display(assignment.source_path)
    cells = {q.grade_id: q.points for q in assignment.questions if q.kind == "autograded"}
    for grade_id, points in cells.items():
        tests = declared.get(grade_id, 0.0)
        if abs(tests - points) > 1e-9:
            problems.append(
                f"question {grade_id}: its test cell in {where} gives {points:g} points, its hidden "
                f"tests' @question(points=...) add up to {tests:g} "
                f"({assignment.course.display(suite)}); make the tests split the cell's points"
            )
    for grade_id in sorted(set(declared) - set(cells)):
        problems.append(
            f"hidden tests give {declared[grade_id]:g} points to {grade_id!r}, which is not an "
            f"autograded test cell of {where}"
        )
    return [f"{assignment.name}: {problem}" for problem in problems]
