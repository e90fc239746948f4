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

from ..notebooks import is_autograded_test

HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"

WRAPPER = '''try:
    exec(compile({visible!r}, "<visible checks>", "exec"), globals())
except Exception as _visible_failure:  # reported, not scored: the hidden tests below decide
    print(f"visible check failed ({{type(_visible_failure).__name__}}: {{_visible_failure}}); "
          "the hidden tests decide the score")
'''


def informative_visible_checks(source: str) -> str:
    """Rewrite one test cell's source; cells without a hidden-test region are returned unchanged."""
    lines = source.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.strip() == HIDDEN_BEGIN]
    if not starts:
        return source
    visible, hidden = "".join(lines[:starts[0]]), "".join(lines[starts[0]:])
    if not visible.strip():
        return source
    return WRAPPER.format(visible=visible) + hidden


class InformativeVisibleChecks(NbGraderPreprocessor):
    """Visible checks in autograded test cells report failures instead of zeroing the cell."""

    def preprocess_cell(self, cell, resources, index):
        if is_autograded_test(cell):
            cell.source = informative_visible_checks(cell.source)
        return cell, resources
