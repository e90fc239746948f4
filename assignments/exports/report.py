"""The class report: a per-question score histogram (PNG) and a Markdown summary.

Every text in the summary's tables goes through ``escaping.markdown_inline``: student keys and evidence
outputs are the students', and a grade id or test name costs nothing to escape too. The only image is
the report's own histogram.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from pathlib import Path

from ..escaping import markdown_inline as md
from ..results.findings import SHORTCUT
from ..results.findings import kind as finding_kind
from ..results.model import SubmissionResult
from .text import humanise_test, plural, points, question_title, recorded_title


def meaning(code: str) -> str:
    """The catalogue's line for a finding code (results/findings.py)."""
    found = finding_kind(code)
    return found.meaning if found else ""


def _question_order(results: list[SubmissionResult]) -> list[tuple[str, str, float]]:
    order: dict[str, tuple[str, float]] = {}
    for result in results:
        for q in result.questions:
            order.setdefault(q.grade_id, (q.kind, q.max_points))
    return [(grade_id, kind, maximum) for grade_id, (kind, maximum) in order.items()]


def _scores(results: list[SubmissionResult], grade_id: str) -> list[float]:
    found = []
    for result in results:
        try:
            value = result.question(grade_id).points
        except KeyError:
            continue
        if value is not None:
            found.append(float(value))
    return found


def histogram_png(results: list[SubmissionResult], path: Path, assignment: str | None = None) -> Path:
    """One subplot per question (plus the autograded total): how many students got each score."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    assignment = assignment or (results[0].assignment if results else "")
    panels = [
        (question_title(assignment, recorded_title(results, g)), kind, m, _scores(results, g))
        for g, kind, m in _question_order(results)
    ]
    panels.append(
        (
            "Autograded total",
            "total",
            max((r.autograded_max for r in results), default=0.0),
            [r.autograded_points for r in results],
        )
    )
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.2 * nrows), squeeze=False)
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax, (title, kind, maximum, scores) in zip(axes.flat, panels):
        top = max(maximum, max(scores, default=0.0), 1.0)
        step = 0.5 if top <= 5 else (1.0 if top <= 20 else top / 20)
        bins = [i * step for i in range(int(math.ceil(top / step)) + 2)]
        ax.hist(scores, bins=bins, align="left", rwidth=0.85, color="#4c72b0" if kind != "manual" else "#dd8452")
        label = " (written)" if kind == "manual" and not title.endswith("(written)") else ""
        ax.set_title(f"{title}{label}\nmax {points(maximum)}, n = {len(scores)}", fontsize=10)
        ax.set_xlabel("points")
        ax.set_ylabel("students")
        ax.set_xlim(-step, top + step)
        ax.yaxis.get_major_locator().set_params(integer=True)
        if not scores:
            ax.set_ylim(0, 1)
            ax.set_yticks([])
            ax.text(0.5, 0.5, "not graded yet", transform=ax.transAxes, ha="center", va="center", color="gray")
    fig.suptitle(f"{assignment}: score per question ({plural(len(results), 'submission')})", fontsize=12)
    fig.tight_layout(rect=(0, 0, 1, 0.97))  # leave room for the title above the panels
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path


def summary_markdown(results: list[SubmissionResult], assignment: str | None = None) -> str:
    """Mean, median and maximum per question; submissions by status; findings by code; hardest tests."""
    assignment = assignment or (results[0].assignment if results else "")
    out = [f"# Class report: {md(assignment)}", "", f"{len(results)} submission(s)"]
    statuses = Counter(r.status for r in results)
    if statuses:
        out[-1] += ": " + ", ".join(f"{n} {md(status)}" for status, n in sorted(statuses.items()))
    out += [
        "",
        "## Scores per question",
        "",
        "| question | kind | max | graded | mean | median | max scored | full marks |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    rows = [(g, kind, m, _scores(results, g)) for g, kind, m in _question_order(results)]
    rows.append(
        (
            "autograded total",
            "total",
            max((r.autograded_max for r in results), default=0.0),
            [r.autograded_points for r in results],
        )
    )
    for grade_id, kind, maximum, scores in rows:
        if scores:
            stats = [
                points(statistics.fmean(scores)),
                points(statistics.median(scores)),
                points(max(scores)),
                str(sum(1 for s in scores if s >= maximum - 1e-9)),
            ]
        else:
            stats = ["–", "–", "–", "–"]
        out.append(f"| {md(grade_id)} | {md(kind)} | {points(maximum)} | {len(scores)} | " + " | ".join(stats) + " |")
    findings = Counter(f.code for r in results for f in r.findings)
    students = {code: len({r.student for r in results if any(f.code == code for f in r.findings)}) for code in findings}
    out += ["", "## Findings", ""]
    if findings:
        out += ["| code | meaning | count | students |", "| --- | --- | ---: | ---: |"]
        out += [
            f"| {md(code)} | {md(meaning(code))} | {n} | {students[code]} |" for code, n in sorted(findings.items())
        ]
    else:
        out.append("No findings.")
    out += shortcut_section(results)
    out += evidence_section(results)
    tests: dict[tuple[str, str], list[bool]] = {}
    for result in results:
        for q in result.questions:
            for t in q.tests:
                tests.setdefault((q.grade_id, t.name), []).append(t.outcome == "passed")
    if tests:
        out += [
            "",
            "## Hidden tests by pass rate (lowest first)",
            "",
            "| question | test | passed |",
            "| --- | --- | ---: |",
        ]
        ranked = sorted(tests.items(), key=lambda item: (sum(item[1]) / len(item[1]), item[0]))
        for (grade_id, name), passed in ranked[:15]:
            out.append(f"| {md(grade_id)} | {md(humanise_test(name))} | {sum(passed)} / {len(passed)} |")
    return "\n".join(out) + "\n"


def shortcut_section(results: list[SubmissionResult]) -> list[str]:
    """Markdown lines: per question, who used a library call it forbids, and how many lost the points."""
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
        "| question | students | scored 0 for it | who |",
        "| --- | ---: | ---: | --- |",
    ]
    for question in sorted(flagged):
        who = ", ".join(md(student) for student in sorted(flagged[question])[:10])
        who += ", …" if len(flagged[question]) > 10 else ""
        out.append(f"| {md(question)} | {len(flagged[question])} | {len(zeroed.get(question, ()))} | {who} |")
    return out


def evidence_section(results: list[SubmissionResult]) -> list[str]:
    """Markdown lines: per written question, each student's evidence as submitted (status and the last
    lines of output text), so numbers can be compared across the class."""
    from assignments.grading.submission.evidence import by_question

    from .evidence_view import report_lines

    rows: dict[str, list[tuple[str, str]]] = {}
    for result in sorted(results, key=lambda r: r.student):
        for question, items in by_question(result.evidence).items():
            rows.setdefault(question, []).append((result.student, report_lines(items)))
    if not rows:
        return []
    out = ["", "## Written answers' evidence (outputs as the students submitted them)"]
    for question, entries in rows.items():
        out += ["", f"### {md(question)}", "", "| student | evidence (status: last lines of output) |", "| --- | --- |"]
        out += [f"| {md(student)} | {text} |" for student, text in entries]
    return out


def write_report(results: list[SubmissionResult], folder: Path, assignment: str | None = None) -> list[Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    png = histogram_png(results, folder / "histograms.png", assignment)
    md = folder / "summary.md"
    text = summary_markdown(results, assignment) + f"\n![score per question]({png.name})\n"
    md.write_text(text, encoding="utf-8")
    return [png, md]
