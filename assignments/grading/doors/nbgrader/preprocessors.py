"""An nbgrader preprocessor that lets the hidden tests, not the visible checks, decide a test cell's score.

A test cell starts with visible checks (for the student, on Colab) and ends with the hidden-test call
whose value nbgrader reads as partial credit. If a visible check raises first, the cell ends in an error
and nbgrader gives it 0, even when the hidden tests would have given partial credit: the two doors would
disagree on a buggy but honest submission. Under ``nbgrader autograde`` this preprocessor (configured in
nbgrader_config.py, after nbgrader has restored the test cells from the source) runs the visible part
inside a ``try`` that prints the failure instead of raising. Students still see their visible checks fail
in their own runs; only grading changes.
"""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from assignments.notebooks import HIDDEN_TESTS, has_marker, is_autograded_test, split_at_hidden_tests

WRAPPER = """try:
    exec(compile({visible!r}, "<visible checks>", "exec"), globals())
except Exception as _visible_failure:  # reported, not scored: the hidden tests below decide
    print(f"visible check failed ({{type(_visible_failure).__name__}}: {{_visible_failure}}); "
          "the hidden tests decide the score")
"""


def informative_visible_checks(source: str) -> str:
    """Rewrite one test cell's source; cells without a hidden-test region are returned unchanged."""
    visible, hidden = split_at_hidden_tests(source)
    if not hidden or not visible.strip():
        return source
    return WRAPPER.format(visible=visible) + hidden


class InformativeVisibleChecks(NbGraderPreprocessor):
    """Visible checks in autograded test cells report failures instead of zeroing the cell."""

    def preprocess_cell(self, cell, resources, index):
        if is_autograded_test(cell):
            cell.source = informative_visible_checks(cell.source)
        return cell, resources


# --- honest points: the cell's score comes from the hidden-test call, not from the kernel's display -----

POINTS_MIME = "application/vnd.course-hidden-points+json"


def published_points(cell, grade_id: str) -> list[dict]:
    """The points records the hidden-test call published in this cell (for this grade_id)."""
    found = []
    for output in cell.get("outputs", []):
        record = output.get("data", {}).get(POINTS_MIME) if output.get("output_type") == "display_data" else None
        if isinstance(record, dict) and record.get("grade_id") == grade_id:
            found.append(record)
    return found


def _valid_points(record: dict) -> float | None:
    points, maximum = record.get("points"), record.get("max_points")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (points, maximum)):
        return None
    if not 0 <= points <= maximum:  # also rejects NaN
        return None
    return float(points)


def honest_outputs(cell, grade_id: str, max_points: float) -> tuple[list, str | None]:
    """The cell's outputs with exactly one execute_result holding the hidden tests' points, and a note
    (None when the points were found). Errors stay, so a cell that raised still scores 0 in nbgrader."""
    import nbformat

    records = published_points(cell, grade_id)
    points = _valid_points(records[0]) if len(records) == 1 else None
    if points is not None:
        points, note = min(points, max_points), None
    elif not records:
        note = (
            f"[grader] {grade_id}: the hidden tests published no points (they did not run to the end, "
            "or the notebook interfered with them); this cell scores 0"
        )
    else:
        note = (
            f"[grader] {grade_id}: the hidden tests' points were published {len(records)} times or "
            "malformed, so they cannot be trusted; this cell scores 0"
        )
    kept = [
        o
        for o in cell.get("outputs", [])
        if o.get("output_type") != "execute_result" and POINTS_MIME not in o.get("data", {})
    ]
    if note:
        kept.append(nbformat.v4.new_output("stream", name="stdout", text=note + "\n"))
    kept.append(
        nbformat.v4.new_output(
            "execute_result",
            data={"text/plain": repr(float(points or 0.0))},
            execution_count=cell.get("execution_count"),
        )
    )
    return kept, note


class HonestPoints(NbGraderPreprocessor):
    """After execution, a hidden-test cell's result is the points its hidden-test call published (0 if
    none), so nbgrader's own grade reading sees a number the kernel's display settings cannot change."""

    def preprocess_cell(self, cell, resources, index):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if is_autograded_test(cell) and has_marker(cell.source, HIDDEN_TESTS):
            cell.outputs, note = honest_outputs(cell, meta["grade_id"], float(meta.get("points", 0)))
            if note:
                self.log.warning(note)
        return cell, resources
