"""Gradescope's ``results.json`` from a results record (the runner inside Gradescope's container is
``assignments/platforms/gradescope/runner.py``; the autograder zip is built by ``assignments/platforms/gradescope/bundle.py``).
``course export``'s ``gradescope-preview`` format writes the same file per student: a preview of what
each student would see on Gradescope, which Gradescope cannot import (its scores come only from
``run_autograder`` in its own container).

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

from assignments.escaping import one_line, printable
from assignments.exports.text import (
    execution_seconds,
    humanise_test,
    question_title,
    safe_message,
    student_findings,
)
from assignments.points import points_text
from assignments.results.model import SubmissionResult
from assignments.settings import setting

# ---------------------------------------------------------------- results.json


# Gradescope's visibility values (gradescope/autograder_samples, docs/specs.md at
# 00f6aa02e2bb1083bd8788c5a1d306fea721e833, "Controlling Test Case Visibility"), in our words:
# - "visible" (its default): the student always sees the test;
# - "after_due_date": the test is shown once the assignment's due date has passed;
# - "after_published": the test is shown once staff publish the grades from "Review Grades";
# - "hidden": the test is never shown to students.
# A top-level "visibility" applies to every test, and a test's own value overrides it. The spec adds that
# while any test is held back (after_due_date before the due date, after_published before publishing),
# students do not see their total score either; tests marked "hidden" do not hide the total, because the
# spec means "hidden" only for tests that carry no points. Every hidden test here carries points, so
# "hidden" is refused as the course's setting: it would hide which tests lost points while the total,
# made of those very points, stays in view. The course's value is read and checked once, with its settings
# (``Settings.gradescope_test_visibility``); here it is only written.
VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")
DEFAULT_VISIBILITY = setting("gradescope_test_visibility").default  # a course that does not say
VISIBILITY_SPEC = "gradescope/autograder_samples docs/specs.md, Controlling Test Case Visibility"
# What the top-level output says instead of the score while the tests (and so the total) are held back.
HELD_BACK = {
    "after_due_date": "Your autograded score and each test's result are shown after the due date.",
    "after_published": "Your autograded score and each test's result are shown when grades are published.",
}


def results_json(result: SubmissionResult, visibility: str = DEFAULT_VISIBILITY) -> dict:
    """The Gradescope results.json for one record. ``visibility`` (the course's
    ``Settings.gradescope_test_visibility``) is the assignment-level value and every hidden test's; a
    question that no test ran for (an upload that could not be graded) stays visible, so the student learns
    at once that the upload must be sent again.
    While tests are held back, the top-level output leaves out the score Gradescope hides."""
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
        "output": printable(overall_output(result, HELD_BACK.get(visibility))),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "stdout_visibility": "hidden",  # run_autograder's stdout is the staff log (findings unabridged)
        "visibility": visibility,
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
    from assignments.exports.adjust import reported_score

    return reported_score(result, "autograded", result.autograded_max)


def autograded_score(result: SubmissionResult) -> float:
    return float(reported(result).points)


def overall_output(result: SubmissionResult, held_back: str | None = None) -> str:
    """The submission's message: its score (or ``held_back``, the line that says when the score is shown),
    lateness, excused and written questions, and the grader's notes for the student."""
    score = reported(result)
    lines = [held_back or f"Autograded score: {points_text(score.points)} / {points_text(score.max_points)}"]
    if score.penalty and not held_back:
        lines.append(f"Late penalty: -{points_text(score.penalty)} points ({result.late_note}).")
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
        names = ", ".join(f"{question_title(result.assignment, q)} ({points_text(q.max_points)} pts)" for q in manual)
        lines.append(f"Written answers are graded by hand, separately: {names}.")
    findings = student_findings(result)
    if findings:
        lines.append("")
        lines.append("Notes from the grader:")
        for finding in findings:
            where = f" [{one_line(finding.cell)}]" if finding.cell else ""
            lines.append(f"- {finding.severity}{where}: {finding.message}")
    return "\n".join(lines)


def write_results_json(result: SubmissionResult, path: Path, visibility: str = DEFAULT_VISIBILITY) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results_json(result, visibility), indent=2) + "\n", encoding="utf-8")
    return path


def write_all(results: list[SubmissionResult], folder: Path, visibility: str = DEFAULT_VISIBILITY) -> list[Path]:
    """One ``<student>.json`` per record (what Gradescope would show each student), ``visibility`` as the
    course's setting says."""
    return [write_results_json(r, Path(folder) / f"{r.student}.json", visibility) for r in results]
