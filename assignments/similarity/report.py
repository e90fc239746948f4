"""``course similarity``: the similarity report of a class, as HTML, JSON and a terminal table.

The method (tokens, fingerprints, scores) is ``compare.py``; this module reads the class the way
``course grade`` does, and writes what an instructor looks at:

- ``similarity.html``: one self-contained page (no scripts, no outside files): the ranked pairs, then for
  each of the top pairs every question they share fingerprints on, the two answers side by side with the
  lines of shared passages highlighted. Everything a student wrote is HTML-escaped (``escaping``), and
  the page's content security policy lets it load nothing.
- ``similarity.json``: the same top pairs with their per-question figures, each student's most similar
  classmate, and the notebooks that could not be compared and why.

A high score is a reason to look, never a verdict: two students can share a passage honestly (a hint
from a TA, the lecture's code), and a copy can be rewritten past any token matcher.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from assignments.course import Assignment
from assignments.escaping import html_text, one_line, page_policy_meta
from assignments.similarity import compare as similarity
from assignments.similarity.compare import Comparison, Pair

TOP = 20  # pairs explained in the report and the table by default


def names(comparison: Comparison) -> dict[str, str]:
    """student key -> "display name (key)" when the LMS gave a name that differs from the key."""
    return {
        s.student: f"{s.name} ({s.student})" if s.name and s.name != s.student else s.student
        for s in comparison.students
    }


# ---------------------------------------------------------------- terminal


def table(comparison: Comparison, top: int = TOP) -> str:
    """The top pairs, one row each: score, shared fingerprints and the questions that share the most."""
    who = {student: one_line(name, 80) for student, name in names(comparison).items()}  # a terminal's text
    compared = sum(1 for s in comparison.students if s.problem is None)
    title = (
        f"{comparison.assignment}: {compared} notebook(s) compared, {len(comparison.pairs)} pair(s) share "
        f"code; top {min(top, len(comparison.pairs))}"
    )
    if not comparison.pairs:
        return f"{title}\n(no two answers share a passage beyond the starter code)"
    header = ["rank", "score", "student", "student", "shared", "most shared questions"]
    rows = [
        [str(rank), f"{pair.score:.2f}", who[pair.a], who[pair.b], str(pair.shared), _top_questions(pair)]
        for rank, pair in enumerate(comparison.pairs[:top], start=1)
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(header, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


def _top_questions(pair: Pair, count: int = 3) -> str:
    shown = [q for q in pair.questions if q.shared][:count]
    return ", ".join(f"{q.grade_id} {q.jaccard:.2f}" for q in shown)


# ---------------------------------------------------------------- JSON


def to_json(comparison: Comparison, top: int = TOP) -> dict:
    nearest = comparison.nearest()
    return {
        "assignment": comparison.assignment,
        "method": {
            "tokens_per_kgram": similarity.K,
            "winnowing_window": similarity.WINDOW,
            "score": "Jaccard index of the pair's fingerprints over all questions (same question only)",
            "questions": list(comparison.questions),
        },
        "students": len(comparison.students),
        "compared": sum(1 for s in comparison.students if s.problem is None),
        "pairs_sharing_code": len(comparison.pairs),
        "pairs": [_pair_json(rank, pair) for rank, pair in enumerate(comparison.pairs[:top], start=1)],
        "nearest": {
            s.student: {"classmate": nearest[s.student][0], "score": round(nearest[s.student][1], 4)}
            if s.student in nearest
            else None
            for s in comparison.students
            if s.problem is None
        },
        "not_compared": {s.student: s.problem for s in comparison.students if s.problem is not None},
        "notes": {s.student: s.notes for s in comparison.students if s.notes},
    }


def _pair_json(rank: int, pair: Pair) -> dict:
    return {
        "rank": rank,
        "a": pair.a,
        "b": pair.b,
        "score": round(pair.score, 4),
        "shared": pair.shared,
        "questions": [
            {
                "grade_id": q.grade_id,
                "jaccard": round(q.jaccard, 4),
                "containment": round(q.containment, 4),
                "shared": q.shared,
                "lines_a": q.lines_a,
                "lines_b": q.lines_b,
            }
            for q in pair.questions
        ],
    }


# ---------------------------------------------------------------- HTML

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table.rank { border-collapse: collapse; }
table.rank td, table.rank th { border-bottom: 1px solid #ddd; padding: 0.2em 0.8em; text-align: left; }
.pair { margin-top: 3em; border-top: 2px solid #888; }
.question { margin: 1.5em 0; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
.side pre { margin: 0; padding: 0.5em; background: #f7f7f7; overflow-x: auto; font-size: 0.85em; }
.side h4 { margin: 0.3em 0; }
.line { display: block; white-space: pre; }
.shared { background: #ffe08a; }
.number { color: #999; display: inline-block; width: 3em; user-select: none; }
.note { color: #555; max-width: 60em; }
"""


def write_html(comparison: Comparison, path: Path, top: int = TOP) -> Path:
    who = names(comparison)
    pairs = comparison.pairs[:top]
    compared = sum(1 for s in comparison.students if s.problem is None)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        page_policy_meta(),
        f"<title>Similarity report: {html_text(comparison.assignment)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>Similarity report: {html_text(comparison.assignment)}</h1>",
        f'<p class="note">{compared} notebook(s) compared over {len(comparison.questions)} code answer(s) '
        f"({html_text(', '.join(comparison.questions))}); {len(comparison.pairs)} pair(s) share at least one "
        f"passage beyond the starter code. Method: normalized tokens (identifiers renamed away, comments and "
        f"layout ignored), {similarity.K}-token k-grams, winnowing window {similarity.WINDOW}; the release "
        "notebook's own code never counts. Score: shared fingerprints over all fingerprints of the pair, "
        "question by question. Highlighted lines lie in a passage both answers have. A high score is a "
        "reason to look, not a verdict.</p>",
    ]
    parts += _ranking(pairs, who)
    for rank, pair in enumerate(pairs, start=1):
        parts += _pair_section(rank, pair, who, comparison)
    skipped = [s for s in comparison.students if s.problem is not None]
    if skipped:
        parts.append("<h2>Not compared</h2><ul>")
        parts += [f"<li>{html_text(who[s.student])}: {html_text(s.problem)}</li>" for s in skipped]
        parts.append("</ul>")
    noted = [(s.student, note) for s in comparison.students for note in s.notes]
    if noted:
        parts.append("<h2>Notes</h2><ul>")
        parts += [f"<li>{html_text(who[student])}: {html_text(note)}</li>" for student, note in noted]
        parts.append("</ul>")
    parts.append("</body></html>")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
    return path


def _ranking(pairs: list[Pair], who: dict[str, str]) -> list[str]:
    if not pairs:
        return ["<p>No two notebooks share a passage beyond the starter code.</p>"]
    rows = [
        '<table class="rank"><tr><th>rank</th><th>score</th><th>student</th><th>student</th>'
        "<th>shared fingerprints</th><th>most shared questions</th></tr>"
    ]
    for rank, pair in enumerate(pairs, start=1):
        rows.append(
            f'<tr><td><a href="#pair-{rank}">{rank}</a></td><td>{pair.score:.2f}</td>'
            f"<td>{html_text(who[pair.a])}</td><td>{html_text(who[pair.b])}</td><td>{pair.shared}</td>"
            f"<td>{html_text(_top_questions(pair))}</td></tr>"
        )
    rows.append("</table>")
    return rows


def _pair_section(rank: int, pair: Pair, who: dict[str, str], comparison: Comparison) -> list[str]:
    by_student = {s.student: s for s in comparison.students}
    first, second = by_student[pair.a], by_student[pair.b]
    parts = [
        f'<section class="pair" id="pair-{rank}"><h2>#{rank}: {html_text(who[pair.a])} and {html_text(who[pair.b])}: '
        f"score {pair.score:.2f}, {pair.shared} shared fingerprint(s)</h2>"
    ]
    for match in pair.questions:
        if not match.shared:
            continue
        parts.append(
            f'<div class="question"><h3>{html_text(match.grade_id)}: Jaccard {match.jaccard:.2f}, '
            f'containment {match.containment:.2f}, {match.shared} shared</h3><div class="side">'
        )
        parts.append(_code_column(who[pair.a], first.answers.get(match.grade_id, ""), match.lines_a))
        parts.append(_code_column(who[pair.b], second.answers.get(match.grade_id, ""), match.lines_b))
        parts.append("</div></div>")
    parts.append("</section>")
    return parts


def _code_column(title: str, code: str, highlighted: list[int]) -> str:
    marked = set(highlighted)
    lines = []
    for number, line in enumerate(code.splitlines() or [""], start=1):
        kind = "line shared" if number in marked else "line"
        lines.append(f'<span class="{kind}"><span class="number">{number}</span>{html_text(line)}</span>')
    return f"<div><h4>{html_text(title)}</h4><pre>{''.join(lines)}</pre></div>"


# ---------------------------------------------------------------- the command


def write_report(comparison: Comparison, out: Path, top: int = TOP) -> tuple[Path, Path]:
    """``<out>/similarity.html`` and ``<out>/similarity.json``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    page = write_html(comparison, out / "similarity.html", top)
    data = out / "similarity.json"
    data.write_text(json.dumps(to_json(comparison, top), indent=2) + "\n", encoding="utf-8")
    return page, data


def similarity_report(
    assignment: Assignment, source: Path, out: Path, top: int = TOP, workers: int | None = None
) -> Comparison:
    """Read an LMS download (or a folder, or one notebook) as ``course grade`` does, compare every pair
    and write the report into ``out``."""
    from assignments.workflow import collect

    clock = time.perf_counter()
    jobs, found = collect(assignment.name, Path(source), Path(out))
    intake_s = time.perf_counter() - clock
    display = {s.student: s.name for s in found.submissions}
    comparison = similarity.compare_class(
        assignment, [(j.student, Path(j.path), display.get(j.student, "")) for j in jobs], top=top, workers=workers
    )
    clock = time.perf_counter()
    write_report(comparison, out, top)
    comparison.timings.update(intake_s=intake_s, report_s=time.perf_counter() - clock)
    return comparison


__all__ = ["similarity_report", "write_report", "write_html", "to_json", "table"]
