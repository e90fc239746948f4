"""The class report, written to read at any class size (docs/reference/class-report.md):

- ``summary.md``: one row per question (its title, difficulty and discrimination beside the usual
  figures), findings by code, shortcuts, the hardest hidden tests, and per written question how many
  students' evidence was kept or flagged: nothing in it grows with the number of students;
- ``histograms.png`` and ``questions.png`` (``report_figures``): scores per question, and each question's
  difficulty and discrimination (``item_analysis``);
- ``students/index.md`` and ``students/<student>.md``: each student's scores, findings and written
  answers' evidence, on a page of their own.

Every text in them goes through ``escaping``: student keys, findings and evidence outputs are the
students'; titles and grade ids cost nothing to escape too. A student's page is named after their key,
which the results store has already checked as a file name, and linked with its name percent-encoded.
"""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from assignments.escaping import markdown_inline as md
from assignments.exports import report_figures
from assignments.exports.adjust import is_pending
from assignments.exports.evidence_view import evidence_markdown
from assignments.exports.item_analysis import QuestionStats, question_order, question_stats
from assignments.exports.text import humanise_test, plural, question_title, recorded_title
from assignments.points import points_text
from assignments.results.findings import SHORTCUT
from assignments.results.findings import kind as finding_kind
from assignments.results.model import SubmissionResult
from assignments.runs.store import result_path

STUDENTS = "students"  # the folder of the per-student pages, beside summary.md
HARDEST_TESTS = 15
TOTAL_TITLE = "Autograded total (every submission)"
EVIDENCE_STATUSES = ("kept", "edited", "not-run", "missing")


def meaning(code: str) -> str:
    """The catalogue's line for a finding code (results/findings.py)."""
    found = finding_kind(code)
    return found.meaning if found else ""


def titles(results: list[SubmissionResult], assignment: str) -> dict[str, str]:
    """grade_id -> the question's title: as the records carry it, else the assignment's, else readable."""
    return {g: question_title(assignment, recorded_title(results, g)) for g, _, _ in question_order(results)}


def kind_name(kind: str) -> str:
    """How a question's kind reads in the report: "autograded" or "written" (the record's "manual")."""
    return "written" if kind == "manual" else md(kind)


def _number(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _total(results: list[SubmissionResult]) -> tuple[float, list[float]]:
    return max((r.autograded_max for r in results), default=0.0), [float(r.autograded_points) for r in results]


def _figures(found: list[float], maximum: float) -> str:
    """The mean, median and full-marks cells of a row."""
    if not found:
        return "– | – | –"
    full = sum(1 for score in found if score >= maximum - 1e-9)
    return f"{_number(statistics.fmean(found))} | {points_text(statistics.median(found))} | {full}"


def question_rows(results: list[SubmissionResult], stats: list[QuestionStats], names: dict[str, str]) -> list[str]:
    """The summary's table: one row per question, then the autograded total."""
    out = [
        "| question | grade id | kind | max | scored | mean | median | full marks | difficulty | discrimination |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for stat in stats:
        out.append(
            f"| {md(names[stat.grade_id])} | {md(stat.grade_id)} | {kind_name(stat.kind)} | "
            f"{points_text(stat.max_points)} | {stat.graded} | {_figures(list(stat.scores), stat.max_points)} | "
            f"{_number(stat.difficulty)} | {_number(stat.discrimination)} |"
        )
    maximum, totals = _total(results)
    out.append(
        f"| {TOTAL_TITLE} | – | total | {points_text(maximum)} | {len(totals)} | {_figures(totals, maximum)} | – | – |"
    )
    return out


def summary_markdown(results: list[SubmissionResult], assignment: str | None = None) -> str:
    """The class report's summary page (see the module's docstring)."""
    assignment = assignment or (results[0].assignment if results else "")
    stats = question_stats(results)
    names = titles(results, assignment)
    out = [f"# Class report: {md(assignment)}", "", plural(len(results), "submission")]
    statuses = Counter(r.status for r in results)
    if statuses:
        out[-1] += ": " + ", ".join(f"{n} {md(status)}" for status, n in sorted(statuses.items()))
    if statuses.get("rejected"):
        out += [
            "",
            f"{plural(statuses['rejected'], 'upload')} could not be graded: each scores 0 in the autograded "
            "total and is left out of the per-question figures.",
        ]
    out += ["", "## Questions", "", *question_rows(results, stats, names)]
    waiting = [names[s.grade_id] for s in stats if not s.scores]
    if waiting:
        out += ["", f"Not graded yet (no panel below): {', '.join(md(name) for name in waiting)}."]
    out += pending_lines(results, stats, names)
    out += [
        "",
        "Difficulty: the mean score over the maximum (1: everyone had full marks). Discrimination: the "
        "correlation between a question's score and the rest of each student's total; below 0.2 the "
        "question separates strong and weak students little, and below 0 the stronger students did worse "
        "on it, so look at the question, its tests or its mark scheme.",
        "",
        "![score per question](histograms.png)",
        "",
        "![difficulty and discrimination per question](questions.png)",
    ]
    out += findings_section(results)
    out += shortcut_section(results, names)
    out += hardest_tests_section(results, names)
    out += evidence_section(results, names)
    out += ["", f"Each student's scores, findings and evidence: [{STUDENTS}/index.md]({STUDENTS}/index.md)."]
    return "\n".join(out) + "\n"


def pending_lines(results: list[SubmissionResult], stats: list[QuestionStats], names: dict[str, str]) -> list[str]:
    """How many written answers wait for a grader (``adjust.is_pending``), per question: pending, never 0."""
    counts = {}
    for stat in stats:
        found = sum(is_pending(r, q) for r in results for q in r.questions if q.grade_id == stat.grade_id)
        if found:
            counts[names[stat.grade_id]] = found
    if not counts:
        return []
    each = ", ".join(f"{md(name)}: {n}" for name, n in counts.items())
    return [
        "",
        f"{plural(sum(counts.values()), 'written answer')} not graded yet ({each}): a written question's figures "
        "are over the answers graded so far, and no total of a student with a pending answer is final.",
    ]


def findings_section(results: list[SubmissionResult]) -> list[str]:
    findings = Counter(f.code for r in results for f in r.findings)
    students = {code: len({r.student for r in results if any(f.code == code for f in r.findings)}) for code in findings}
    out = ["", "## Findings", ""]
    if not findings:
        return out + ["No findings."]
    out += ["| code | meaning | count | students |", "| --- | --- | ---: | ---: |"]
    return out + [
        f"| {md(code)} | {md(meaning(code))} | {n} | {students[code]} |" for code, n in sorted(findings.items())
    ]


def shortcut_section(results: list[SubmissionResult], names: dict[str, str] | None = None) -> list[str]:
    """Markdown lines: per question, who used a library call it forbids, and how many lost the points."""
    names = names or {}
    flagged: dict[str, set[str]] = {}
    zeroed: dict[str, set[str]] = {}
    for result in results:
        for finding in result.findings:
            if finding.code == SHORTCUT and finding.cell:
                flagged.setdefault(finding.cell, set()).add(result.student)
                if finding.severity == "error":
                    zeroed.setdefault(finding.cell, set()).add(result.student)
    if not flagged:
        return []
    out = [
        "",
        "## Shortcuts (answers that use a library call their question forbids)",
        "",
        "| question | students | scored 0 for it | who (first 10) |",
        "| --- | ---: | ---: | --- |",
    ]
    for question in sorted(flagged):
        who = ", ".join(md(student) for student in sorted(flagged[question])[:10])
        who += ", …" if len(flagged[question]) > 10 else ""
        title = names.get(question, question)
        out.append(f"| {md(title)} | {len(flagged[question])} | {len(zeroed.get(question, ()))} | {who} |")
    return out


def hardest_tests_section(results: list[SubmissionResult], names: dict[str, str]) -> list[str]:
    tests: dict[tuple[str, str], list[bool]] = {}
    for result in results:
        for q in result.questions:
            for t in q.tests:
                tests.setdefault((q.grade_id, t.name), []).append(t.outcome == "passed")
    if not tests:
        return []
    out = [
        "",
        f"## Hidden tests by pass rate (lowest {HARDEST_TESTS})",
        "",
        "| question | test | passed |",
        "| --- | --- | ---: |",
    ]
    ranked = sorted(tests.items(), key=lambda item: (sum(item[1]) / len(item[1]), item[0]))
    for (grade_id, name), passed in ranked[:HARDEST_TESTS]:
        title = names.get(grade_id, grade_id)
        out.append(f"| {md(title)} | {md(humanise_test(name))} | {sum(passed)} / {len(passed)} |")
    return out


def evidence_section(results: list[SubmissionResult], names: dict[str, str]) -> list[str]:
    """Per written question: how many students' evidence was kept, and how many flagged and why (counts;
    each student's evidence is on their own page)."""
    from assignments.grading.submission.evidence import by_question

    counts: dict[str, Counter] = {}
    for result in results:
        for question, items in by_question(result.evidence).items():
            tally = counts.setdefault(question, Counter())
            tally["students"] += 1
            for item in items:
                tally[item.status] += 1
    if not counts:
        return []
    out = [
        "",
        "## Written answers' evidence",
        "",
        "Evidence cells by what the grader found (each student's outputs, as submitted, are on their page).",
        "",
        "| question | students | " + " | ".join(EVIDENCE_STATUSES) + " |",
        "| --- | ---: | " + " | ".join("---:" for _ in EVIDENCE_STATUSES) + " |",
    ]
    for question, tally in counts.items():
        cells = " | ".join(str(tally[status]) for status in EVIDENCE_STATUSES)
        out.append(f"| {md(names.get(question, question))} | {tally['students']} | {cells} |")
    return out


# ---------------------------------------------------------------- a page per student


def page_name(student: str) -> str:
    """``<student>.md``: the key as the results store names its record (ValueError for no file name)."""
    return result_path(Path("."), student).with_suffix(".md").name


def student_markdown(result: SubmissionResult, names: dict[str, str] | None = None) -> str:
    """One student's page: status, score per question, findings, and the written answers' evidence."""
    from assignments.grading.submission.evidence import by_question

    names = names or {}
    out = [
        f"# {md(result.student)}: {md(result.assignment)}",
        "",
        f"Status: {md(result.status)}. Autograded: {points_text(result.autograded_points)} / "
        f"{points_text(result.autograded_max)}.",
        "",
        "## Scores",
        "",
        "| question | kind | points | max |",
        "| --- | --- | ---: | ---: |",
    ]
    for question in result.questions:
        title = names.get(question.grade_id) or question_title(result.assignment, question)
        out.append(
            f"| {md(title)} | {kind_name(question.kind)} | {points_text(question.points)} | {points_text(question.max_points)} |"
        )
    if result.findings:
        out += ["", "## Findings", ""]
        for finding in result.findings:
            where = f" [{md(finding.cell)}]" if finding.cell else ""
            out.append(f"- {md(finding.severity)} {md(finding.code)}{where}: {md(finding.message)}")
    evidence = by_question(result.evidence)
    if evidence:
        out += ["", "## Written answers' evidence (outputs as the student submitted them)"]
        for question, items in evidence.items():
            out += ["", f"### {md(names.get(question, question))}", "", *evidence_markdown(items)]
    return "\n".join(out).rstrip() + "\n"


def students_index(results: list[SubmissionResult]) -> str:
    out = ["# Students", "", "| student | status | autograded |", "| --- | --- | ---: |"]
    for result in sorted(results, key=lambda r: r.student):
        link = f"[{md(result.student)}]({quote(page_name(result.student))})"
        score = f"{points_text(result.autograded_points)} / {points_text(result.autograded_max)}"
        out.append(f"| {link} | {md(result.status)} | {score} |")
    return "\n".join(out) + "\n"


def write_student_pages(results: list[SubmissionResult], folder: Path, names: dict[str, str]) -> list[Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / "index.md"]
    written[0].write_text(students_index(results), encoding="utf-8")
    for result in results:
        path = folder / page_name(result.student)
        path.write_text(student_markdown(result, names), encoding="utf-8")
        written.append(path)
    return written


# ---------------------------------------------------------------- the report


def histogram_figure(results: list[SubmissionResult], assignment: str, stats: list[QuestionStats], names: dict):
    """The histograms' figure: a panel per question with a score (graded records), then the autograded
    total of every submission."""
    panels = [(names[s.grade_id], s.kind, s.max_points, list(s.scores)) for s in stats]
    panels.append((TOTAL_TITLE, "total", *_total(results)))
    heading = f"{assignment}: score per question ({plural(len(results), 'submission')})"
    return report_figures.histogram_figure(panels, heading)


def write_report(results: list[SubmissionResult], folder: Path, assignment: str | None = None) -> list[Path]:
    """summary.md, histograms.png, questions.png and the students' pages, in ``folder``; returns the paths
    (summary and figures first)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    assignment = assignment or (results[0].assignment if results else "")
    stats = question_stats(results)
    names = titles(results, assignment)
    histograms = report_figures.save(histogram_figure(results, assignment, stats, names), folder / "histograms.png")
    items = report_figures.save(
        report_figures.item_analysis_figure(stats, names, f"{assignment}: difficulty and discrimination per question"),
        folder / "questions.png",
    )
    summary = folder / "summary.md"
    summary.write_text(summary_markdown(results, assignment), encoding="utf-8")
    return [summary, histograms, items, *write_student_pages(results, folder / STUDENTS, names)]
