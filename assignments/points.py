"""Points are declared once: in the source notebook's graded cells (nbgrader's ``points``).

Everything else follows from them or is checked against them:

- a question's hidden tests share its points. ``@question("<grade_id>")`` without ``points`` takes an
  equal share of what the tests that name their own points leave (``shares``): four plain tests of a
  3-point cell are worth 0.75 each, three are worth 1/3 each, kept as a fraction (a question's score is
  rounded to 4 decimals only once its tests are added up, so three passing thirds make exactly 1).
  ``points=n`` weighs one test on purpose; a question's explicit points plus its shared ones must come to
  the cell's points exactly (otherwise nbgrader's validate reports only "Partial credit", and the
  standalone door caps or never reaches full marks), so ``course hygiene`` and ``course release`` check
  it here, naming the question and both totals;
- both doors score a test with ``shares`` through the one suite runner (``testkit.suite``), so the
  nbgrader cell's value and the standalone door's question score are the same sum;
- an assignment's total (the LMS's "points possible", ``course catalog``) is the sum of its cells.

The decorators are read statically (``ast``): no test module is imported, so the check is cheap and
needs no torch. A decorator whose grade_id or points is not a literal is reported, not guessed.
"""

from __future__ import annotations

import ast
from pathlib import Path


def shares(cell_points: float, declared: list[float | None]) -> list[float]:
    """The points of each of one question's tests: its own ``points=`` where it names them (None where
    it does not), else an equal share of what the named ones leave of ``cell_points`` (never below 0)."""
    shared = declared.count(None)
    left = cell_points - sum(p for p in declared if p is not None)
    share = max(left, 0.0) / shared if shared else 0.0
    return [share if p is None else float(p) for p in declared]


def declared_points(suite_dir: Path) -> tuple[dict[str, list[tuple[str, float | None]]], list[str]]:
    """grade_id -> [(test, its ``@question`` points or None)], and what could not be read."""
    declared: dict[str, list[tuple[str, float | None]]] = {}
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
                    given = [k.value for k in decorator.keywords if k.arg == "points"]
                    points = ast.literal_eval(given[0]) if given else None
                    points = None if points is None else float(points)
                except (IndexError, ValueError, TypeError):
                    problems.append(
                        f"{path.name}: {node.name}: @question needs a literal grade_id (and points=N if any)"
                    )
                    continue
                declared.setdefault(grade_id, []).append((node.name, points))
    return declared, problems


def _name(func) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def split_problems(assignment) -> list[str]:
    """Where ``assignment``'s hidden tests do not split each autograded cell's points exactly."""
    suite = assignment.suite_dir
    if not suite.is_dir():
        return []
    declared, problems = declared_points(suite)
    where = assignment.course.display(assignment.source_path)
    cells = {q.grade_id: q.points for q in assignment.questions if q.kind == "autograded"}
    for grade_id, points in cells.items():
        tests = declared.get(grade_id, [])
        explicit = sum(p for _, p in tests if p is not None)
        shared = sum(p is None for _, p in tests)
        if not shared and abs(explicit - points) > 1e-9:
            problems.append(
                f"question {grade_id}: its test cell in {where} gives {points:g} points, its hidden "
                f"tests' @question(points=...) add up to {explicit:g} "
                f"({assignment.course.display(suite)}); make the tests split the cell's points"
            )
        elif shared and explicit > points - 1e-9:
            problems.append(
                f"question {grade_id}: its test cell in {where} gives {points:g} points, its hidden "
                f"tests' @question(points=...) add up to {explicit:g}, which leaves nothing for its "
                f"{shared} test(s) without points ({assignment.course.display(suite)}); lower the explicit "
                "points or drop them"
            )
    for grade_id in sorted(set(declared) - set(cells)):
        problems.append(
            f"hidden tests {', '.join(t for t, _ in declared[grade_id])} score {grade_id!r}, which is not an "
            f"autograded test cell of {where}"
        )
    return [f"{assignment.name}: {problem}" for problem in problems]


def points_text(value: float | None) -> str:
    """2.0 -> "2", 1.5 -> "1.5", None -> "–"."""
    if value is None:
        return "–"
    text = f"{round(float(value), 4):.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
