"""Tables for the terminal: per-question scores, and the aligned columns every table here uses."""

from __future__ import annotations

from assignments.escaping import one_line
from assignments.results.findings import SHORTCUT
from assignments.results.model import SubmissionResult


def _cell(points: float | None, maximum: float) -> str:
    return f"  -/{maximum:g}" if points is None else f"{points:g}/{maximum:g}"


def score_table(results: list[SubmissionResult], title: str = "") -> str:
    """One row per student, one column per autograded question, then the autograded total and the
    findings (how many, how many serious, and the questions answered with a forbidden library call)."""
    if not results:
        return f"{title}\n(no submissions)"
    columns = [q.grade_id for q in max(results, key=lambda r: len(r.questions)).questions if q.kind == "autograded"]
    header = ["student", *columns, "total", "findings"]
    rows = []
    for result in sorted(results, key=lambda r: r.student):
        by_id = {q.grade_id: q for q in result.questions}
        cells = [_cell(by_id[c].points, by_id[c].max_points) if c in by_id else "n/a" for c in columns]
        serious = sum(1 for f in result.findings if f.severity == "error")
        shortcuts = sorted({f.cell for f in result.findings if f.code == SHORTCUT and f.cell})
        rows.append(
            [
                result.student,
                *cells,
                _cell(result.autograded_points, result.autograded_max),
                f"{len(result.findings)}"
                + (f" ({serious} serious)" if serious else "")
                + (f" shortcut: {', '.join(shortcuts)}" if shortcuts else ""),
            ]
        )
    return aligned(header, rows, title)


def aligned(header: list[str], rows: list[list], title: str = "") -> str:
    """Rows under a header, each column as wide as its widest entry, for the terminal (every entry on one
    printable line: a student key carries no escape sequence to the instructor's terminal)."""
    rows = [[one_line(value, 120) for value in row] for row in rows]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = [title] if title else []
    lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


def compare_doors(first: list[SubmissionResult], second: list[SubmissionResult]) -> list[str]:
    """Per-question disagreements between two gradings of the same students (empty: identical)."""
    others = {r.student: r.scores() for r in second}
    differences = []
    for result in first:
        theirs = others.get(result.student)
        if theirs is None:
            differences.append(f"{result.student}: missing from the other door")
            continue
        for grade_id, points in result.scores().items():
            if points is not None and theirs.get(grade_id) != points:
                differences.append(f"{result.student} {grade_id}: {points} vs {theirs.get(grade_id)}")
    return differences
