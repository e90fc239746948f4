"""PrairieLearn's external-grading ``results.json`` from a results record (the runner in the grader image is
``assignments/platforms/prairielearn/runner.py``).

PrairieLearn's specification (its docs/externalGrading.md, "Grading results"): ``score`` is a float in
[0, 1]; ``gradable: false`` marks a submission that could not be graded (the student keeps the attempt,
and ``format_errors`` says why), and then ``score`` is not needed. Each entry of ``tests`` carries
``name``, ``points``, ``max_points``, ``message`` and ``output``: with ``points`` and ``max_points`` on
every test, its results element shows the per-test points. ``message`` and ``output`` are for the whole
submission. The file must stay under 1 MB. Every text is grader-written or passed through ``escaping``
(PrairieLearn's element shows them as text). Written (manually graded) questions are left out, as in
Gradescope's results: they are graded by hand elsewhere.
"""

from __future__ import annotations

import json
from pathlib import Path

from assignments.escaping import one_line, printable
from assignments.exports.gradescope import overall_output
from assignments.exports.text import humanise_test, question_title, safe_message, student_findings
from assignments.points import points_text
from assignments.results.model import SubmissionResult

OUTPUT_CHARS = 100_000  # the whole submission's output; with the tests' bounded messages, far below 1 MB


def results_json(result: SubmissionResult) -> dict:
    """PrairieLearn's results.json for one record: the autograded questions' share of their points."""
    autograded = [q for q in result.questions if q.kind == "autograded"]
    if result.status == "rejected":
        errors = [safe_message(f.message) for f in student_findings(result) if f.severity == "error"]
        return {
            "gradable": False,
            "format_errors": errors or ["the notebook could not be graded"],
            "message": "Your upload could not be graded, so this attempt does not count: "
            + (errors[0] if errors else "please tell course staff."),
            "output": printable(overall_output(result))[:OUTPUT_CHARS],
        }
    earned = sum(q.points or 0.0 for q in autograded)
    possible = sum(q.max_points for q in autograded)
    tests = []
    for question in autograded:
        title = question_title(result.assignment, question)
        if not question.tests:
            tests.append(
                {
                    "name": one_line(f"{title}: not graded"),
                    "points": float(question.points or 0.0),
                    "max_points": float(question.max_points),
                    "message": "no hidden test ran for this question; see the message at the top",
                    "output": "",
                }
            )
        for test in question.tests:
            passed = test.outcome == "passed"
            tests.append(
                {
                    "name": one_line(f"{title}: {humanise_test(test.name)}"),
                    "points": float(test.points),
                    "max_points": float(test.max_points),
                    "message": "passed" if passed else safe_message(test.message),
                    "output": "",
                }
            )
    return {
        "gradable": True,
        "score": round(min(1.0, max(0.0, earned / possible)), 6) if possible else 0.0,
        "message": f"Autograded score: {points_text(earned)} / {points_text(possible)}",
        "output": printable(overall_output(result))[:OUTPUT_CHARS],
        "tests": tests,
    }


def write_results_json(result: SubmissionResult, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results_json(result), indent=2) + "\n", encoding="utf-8")
    return path
