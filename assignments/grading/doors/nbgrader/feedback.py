"""What ``nbgrader generate_feedback`` may show a student: hidden-test outcomes, never hidden-test code.

``nbgrader autograde`` restores every test cell from the source, hidden region included, so the
autograded notebook that feedback is rendered from holds the hidden-test call. ``HideHiddenTests`` runs
in the feedback pipeline (see ``nbgrader_config.py``): it removes the hidden region from each cell's
source (nbgrader's own ``ClearHiddenTests`` step), keeps the outputs (the per-test lines and the points
the region printed), shortens an error in such a cell to its last line (a traceback would quote the
hidden code), and replaces lines about the grader's own problems (they may name grader files) with a
fixed line.
"""

from __future__ import annotations

from nbgrader.preprocessors import ClearHiddenTests

GRADER_PROBLEM = "[grader problem]"
GRADER_PROBLEM_LINE = "[grader problem] the grader had an internal problem here; course staff have been told"


UNSHOWN = "# (this cell's code is not shown in feedback)"


class HideHiddenTests(ClearHiddenTests):
    """Feedback step: hidden-test regions out of the sources, their printed outcomes kept.

    A student's own cell may hold the delimiters too (copied, or unbalanced on purpose): that must not
    stop feedback for the class, so such a cell is not shown rather than raising like ``ClearHiddenTests``.
    """

    def __init__(self, **kw):
        kw.setdefault("enforce_metadata", False)
        super().__init__(**kw)

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type != "code":
            return cell, resources
        had_hidden = self.begin_test_delimeter in cell.source or self.end_test_delimeter in cell.source
        try:
            cell, resources = super().preprocess_cell(cell, resources, cell_index)
        except RuntimeError:  # nested or unterminated region
            cell.source = UNSHOWN
        if had_hidden:
            cell.outputs = [_shown(output) for output in cell.get("outputs", [])]
        return cell, resources


def _shown(output):
    if output.get("output_type") == "error":
        output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
    elif output.get("output_type") == "stream":
        output["text"] = "".join(
            GRADER_PROBLEM_LINE + "\n" if line.startswith(GRADER_PROBLEM) else line
            for line in output.get("text", "").splitlines(keepends=True)
        )
    return output
