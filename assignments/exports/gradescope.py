"""Gradescope's ``results.json`` from a results record (the runner inside Gradescope's container is
``assignments/gradescope/runner.py``; the autograder zip is built by ``assignments/gradescope/bundle.py``).

results.json follows Gradescope's autograder specification: a top-level ``score`` (the autograded
points, which Gradescope uses instead of summing the tests), ``execution_time``, ``output`` for the
whole submission, and one entry per hidden test in ``tests`` (``name``, ``score``, ``max_score``,
``status``, ``output``, ``visibility``). Written (manually graded) questions are left out: on Gradescope
they are separate, hand-graded questions of the assignment, and the output line says so. Every name and
output is declared plain text (``output_format``, ``test_output_format``, ``test_name_format``), so
Gradescope renders no Markdown or HTML from it, and goes through ``escaping`` (nothing that does not
print).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..config import read_toml, setting
from ..course import REPO
from ..escaping import one_line, printable
from ..results.model import SubmissionResult
from .text import execution_seconds, humanise_test, points, question_title, safe_message, student_findings

# ---------------------------------------------------------------- results.json


VISIBILITIES = setting("gradescope_test_visibility").choices


def test_visibility(pyproject: Path | None = None) -> str:
    """``[tool.course] gradescope_test_visibility``: when students see hidden tests' names and messages.

    Gradescope's values: visible (default, as before), after_due_date, after_published, hidden.
    """
    try:
        course = read_toml(pyproject or REPO / "pyproject.toml").get("tool", {}).get("course", {})
        value = course.get("gradescope_test_visibility", "visible")
    except (OSError, ValueError):
        return "visible"
    if value not in VISIBILITIES:
        raise ValueError(f"[tool.course] gradescope_test_visibility is {value!r}; expected one of {VISIBILITIES}")
    return value


def results_json(result: SubmissionResult, visibility: str | None = None) -> dict:
    """The Gradescope results.json for one record."""
    visibility = visibility or test_visibility()
    tests = []
    for question in result.questions:
        if question.kind != "autograded":
            continue
        title = question_title(result.assignment, question)
        if not question.tests:
            # Nothing ran for this question (rejected submission, or the grader stopped early).
            tests.append(
                {
                    "name": one_line(f"{title}: not graded"),
                    "score": float(question.points or 0.0),
                    "max_score": float(question.max_points),
                    "status": "failed",
                    "output": "no hidden test ran for this question; see the message at the top",
                    "tags": [question.grade_id],
                    "visibility": "visible",
                }
            )
            continue
        for test in question.tests:
            tests.append(
                {
                    "name": one_line(f"{title}: {humanise_test(test.name)}"),
                    "score": float(test.points),
                    "max_score": float(test.max_points),
                    "status": "passed" if test.outcome == "passed" else "failed",
                    "output": safe_message(test.message) if test.outcome != "passed" else "passed",
                    "tags": [question.grade_id],
                    "visibility": visibility,
                }
            )
    return {
        "score": autograded_score(result),
        "execution_time": int(round(execution_seconds(result))),
        "output": printable(overall_output(result)),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "stdout_visibility": "hidden",
        "visibility": "visible",
        "tests": tests,
        "extra_data": {
            "student": result.student,
            "assignment": result.assignment,
            "door": result.door,
            "status": result.status,
            "autograded_max": float(result.autograded_max),
        },
    }


def reported(result: SubmissionResult):
    """The score Gradescope shows (exports/adjust.py): the autograded questions only, on the autograded
    points Gradescope's outline holds (every autograded question's, excused ones included)."""
    from .adjust import reported_score

    return reported_score(result, "autograded", result.autograded_max)


def autograded_score(result: SubmissionResult) -> float:
    return float(reported(result).points)


def overall_output(result: SubmissionResult) -> str:
    score = reported(result)
    lines = [f"Autograded score: {points(score.points)} / {points(score.max_points)}"]
    if score.penalty:
        lines.append(f"Late penalty: -{points(score.penalty)} points ({result.late_note}).")
    elif result.late_note:
        lines.append(f"Late: {result.late_note}.")
    excused = [question_title(result.assignment, q) for q in result.questions if q.excused]
    if excused:
        lines.append(f"Excused (not counted): {', '.join(excused)}.")
    if result.status == "rejected":
        lines.append(
            "Your notebook could not be graded, so every autograded question scores 0. The notes below say why."
        )
    manual = [q for q in result.questions if q.kind == "manual"]
    if manual:
        names = ", ".join(f"{question_title(result.assignment, q)} ({points(q.max_points)} pts)" for q in manual)
        lines.append(f"Written answers are graded by hand, separately: {names}.")
    findings = student_findings(result)
    if findings:
        lines.append("")
        lines.append("Notes from the grader:")
        for finding in findings:
            where = f" [{one_line(finding.cell)}]" if finding.cell else ""
            lines.append(f"- {finding.severity}{where}: {finding.message}")
    return "\n".join(lines)


def write_results_json(result: SubmissionResult, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results_json(result), indent=2) + "\n", encoding="utf-8")
    return path


def write_all(results: list[SubmissionResult], folder: Path) -> list[Path]:
    """One ``<student>.json`` per record (what Gradescope would show each student)."""
    return [write_results_json(r, Path(folder) / f"{r.student}.json") for r in results]
