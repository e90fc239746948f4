"""Per-student feedback as Markdown and HTML.

Built only from the results record: per question the points, each hidden test's readable name, its
points and the author's message, the comment a grader wrote in formgrader, and the grader's findings. The record holds no hidden code or
expected values by construction; messages still go through ``safe_message`` (no traceback frames,
bounded length) and grader-internal findings are replaced by a fixed line. Every text a student influenced
(name, messages, findings, evidence) is escaped for Markdown or HTML by ``escaping``; a grader's comment
is staff text, meant as Markdown, and shown as written.
"""

from __future__ import annotations

from pathlib import Path

from assignments.escaping import html_text, markdown_inline, page_policy_meta
from assignments.exports.adjust import is_pending, reported_score
from assignments.exports.evidence_view import STYLE as EVIDENCE_STYLE
from assignments.exports.evidence_view import evidence_html, evidence_markdown
from assignments.exports.text import humanise_test, question_title, safe_message, student_findings
from assignments.points import points_text
from assignments.results.findings import SHORTCUT
from assignments.results.model import SubmissionResult

MARK = {"passed": "✓", "failed": "✗", "error": "✗"}
MAX_COMMENT = 4000


def safe_comment(text: str) -> str:
    """A grader's comment as written (it is staff text, meant for the student), bounded in length."""
    text = text.strip()
    return text if len(text) <= MAX_COMMENT else text[: MAX_COMMENT - 1].rstrip() + "…"


def _split_findings(result: SubmissionResult) -> tuple[dict, list]:
    """Student-visible findings: shortcut findings by the question they concern (shown under it), and the
    rest (the notes at the end)."""
    questions = {q.grade_id for q in result.questions}
    by_question: dict[str, list] = {}
    rest = []
    for finding in student_findings(result):
        if finding.code == SHORTCUT and finding.cell in questions:
            by_question.setdefault(finding.cell, []).append(finding)
        else:
            rest.append(finding)
    return by_question, rest


def _evidence_of(result: SubmissionResult, question) -> list:
    """The evidence the record kept for a written question: the outputs the student's answer relies on,
    shown to the student as the TA saw them (and flagged the same way)."""
    return [item for item in result.evidence if item.question == question.grade_id]


def _total_line(result: SubmissionResult) -> str:
    """Autograded, then written answers (graded ones as points, pending ones as "not graded yet"),
    excluding excused questions."""
    kept = [q for q in result.questions if not q.excused]
    auto = [q for q in kept if q.kind == "autograded"]
    line = f"Autograded: {points_text(sum(q.points or 0 for q in auto))} / {points_text(sum(q.max_points for q in auto))} points"
    pending = [q for q in kept if is_pending(result, q)]
    graded = [q for q in kept if q.kind == "manual" and not is_pending(result, q)]
    parts = []
    if graded:
        parts.append(
            f"{points_text(sum(q.points or 0 for q in graded))} / {points_text(sum(q.max_points for q in graded))}"
        )
    if pending:
        parts.append(f"not graded yet ({points_text(sum(q.max_points for q in pending))} points)")
    if parts:
        line += "; written: " + ", ".join(parts)
    return line


def _score_lines(result: SubmissionResult) -> list[str]:
    """The late penalty, if any, and the assignment's score as every export counts it."""
    score = reported_score(result)
    lines = [f"Late penalty: −{points_text(score.penalty)} points ({result.late_note})"] if score.penalty else []
    lines += [f"Late: {result.late_note}"] if result.late_note and not score.penalty else []
    if score.pending:
        # No grade before it is true: a partial sum is not shown as the score.
        answers = "written answer" if score.pending == 1 else "written answers"
        return lines + [
            f"Score: pending: {score.pending} {answers} ({points_text(score.pending_points)} points) not graded yet"
        ]
    return lines + [f"Score: {points_text(score.points)} / {points_text(score.max_points)}"]


def _question_heading(result: SubmissionResult, question) -> str:
    title = question_title(result.assignment, question)
    if question.excused:
        return f"{title}: excused"
    if is_pending(result, question):
        return f"{title}: not graded yet ({points_text(question.max_points)} points)"
    if question.kind == "manual" and question.points is None:  # a rejected record: no answer could be read
        return f"{title}: 0 / {points_text(question.max_points)} (no answer could be read from the notebook)"
    status = " (graded by hand)" if question.kind == "manual" else ""
    return f"{title}: {points_text(question.points)} / {points_text(question.max_points)}{status}"


def _who(result: SubmissionResult, name: str, escape=lambda text: text) -> str:
    """The student's LMS name (``escape``d: the student chose it) and their key."""
    return f"{escape(name)} ({escape(result.student)})" if name and name != result.student else escape(result.student)


def feedback_markdown(result: SubmissionResult, title: str | None = None, name: str = "") -> str:
    """``name``: the student's name as the LMS gave it (the roster), shown beside the key."""
    title = title or f"Feedback: {result.assignment}"
    out = [f"# {markdown_inline(title)}", "", f"Student: {_who(result, name, markdown_inline)}", ""]
    out += [f"**{markdown_inline(line)}**" for line in [_total_line(result), *_score_lines(result)]] + [""]
    if result.status == "rejected":
        out += [
            "> Your notebook could not be graded, so every autograded question scores 0. The notes below say why.",
            "",
        ]
    shortcuts, findings = _split_findings(result)
    for question in result.questions:
        out += [f"## {markdown_inline(_question_heading(result, question))}", ""]
        for test in question.tests:
            mark = MARK.get(test.outcome, "•")
            line = f"- {mark} {markdown_inline(humanise_test(test.name))}: {points_text(test.points)} / {points_text(test.max_points)}"
            message = safe_message(test.message) if test.outcome != "passed" else ""
            if message:
                line += " — " + markdown_inline(message)
            out.append(line)
        if question.kind == "autograded" and not question.tests:
            out.append("- no hidden test ran for this question")
        for finding in shortcuts.get(question.grade_id, []):
            out.append(f"- ⚠ **Shortcut** ({markdown_inline(finding.severity)}): {markdown_inline(finding.message)}")
        if _evidence_of(result, question):
            out += ["", *evidence_markdown(_evidence_of(result, question))]
        if question.comment:
            out.append("> **Grader's comment:** " + safe_comment(question.comment).replace("\n", "\n> "))
        if out[-1] != "":
            out.append("")
    if findings:
        out += ["## Notes from the grader", ""]
        for finding in findings:
            where = f" ({markdown_inline(finding.cell)})" if finding.cell else ""
            out.append(f"- **{markdown_inline(finding.severity)}**{where}: {markdown_inline(finding.message)}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


STYLE = """body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%;margin-bottom:1.5rem}td,th{border-bottom:1px solid #ddd;
padding:.35rem .5rem;text-align:left;vertical-align:top}.passed{color:#1a7f37}.failed,.error{color:#cf222e}
.pts{white-space:nowrap;text-align:right}.note{background:#fff8c5;padding:.6rem;border-radius:4px}
.rejected{background:#ffebe9;padding:.6rem;border-radius:4px}
.comment{background:#ddf4ff;padding:.6rem;border-radius:4px}"""


def feedback_html(result: SubmissionResult, title: str | None = None, name: str = "") -> str:
    e = html_text
    title = title or f"Feedback: {result.assignment}"
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        page_policy_meta(),
        f"<title>{e(title)}</title>",
        f"<style>{STYLE}\n{EVIDENCE_STYLE}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        f"<p>Student: {_who(result, name, e)}</p>",
        f"<p><strong>{e(_total_line(result))}</strong></p>",
    ]
    out += [f"<p><strong>{e(line)}</strong></p>" for line in _score_lines(result)]
    if result.status == "rejected":
        out.append(
            '<p class="rejected">Your notebook could not be graded, so every autograded question '
            "scores 0. The notes below say why.</p>"
        )
    shortcuts, findings = _split_findings(result)
    for question in result.questions:
        out.append(f"<h2>{e(_question_heading(result, question))}</h2>")
        if question.tests:
            out.append("<table><tr><th></th><th>Check</th><th class=pts>Points</th><th>Message</th></tr>")
            for test in question.tests:
                message = safe_message(test.message) if test.outcome != "passed" else ""
                out.append(
                    f'<tr class="{e(test.outcome)}"><td>{MARK.get(test.outcome, "•")}</td>'
                    f"<td>{e(humanise_test(test.name))}</td>"
                    f'<td class="pts">{e(points_text(test.points))} / {e(points_text(test.max_points))}</td>'
                    f"<td>{e(message)}</td></tr>"
                )
            out.append("</table>")
        elif question.kind == "autograded":
            out.append("<p>No hidden test ran for this question.</p>")
        for finding in shortcuts.get(question.grade_id, []):
            out.append(f'<p class="note">⚠ <strong>Shortcut</strong> ({e(finding.severity)}): {e(finding.message)}</p>')
        if _evidence_of(result, question):
            out.append(evidence_html(_evidence_of(result, question)))
        if question.comment:
            out.append(
                '<p class="comment"><strong>Grader\'s comment:</strong> '
                + e(safe_comment(question.comment)).replace("\n", "<br>")
                + "</p>"
            )
    if findings:
        out.append("<h2>Notes from the grader</h2><ul>")
        for finding in findings:
            where = f" ({e(finding.cell)})" if finding.cell else ""
            out.append(f"<li class=note><strong>{e(finding.severity)}</strong>{where}: {e(finding.message)}</li>")
        out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_feedback(
    results: list[SubmissionResult], folder: Path, formats=("md", "html"), roster: dict[str, dict] | None = None
) -> list[Path]:
    """``<folder>/<student>.md`` and ``.html`` for every record; names from ``roster`` where it has them."""
    roster = roster or {}
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for result in results:
        if "md" in formats:
            path = folder / f"{result.student}.md"
            path.write_text(
                feedback_markdown(result, name=roster.get(result.student, {}).get("name", "")), encoding="utf-8"
            )
            written.append(path)
        if "html" in formats:
            path = folder / f"{result.student}.html"
            path.write_text(
                feedback_html(result, name=roster.get(result.student, {}).get("name", "")), encoding="utf-8"
            )
            written.append(path)
    return written
