"""Two nbgrader preprocessors that keep a written answer's evidence as the student submitted it.

``nbgrader autograde`` clears every output in its sanitize pass and re-executes the notebook in grading
mode, so formgrader would show the TA grading-mode numbers under a student's "my accuracy was 87%".
- ``KeepEvidence`` runs first in the sanitize pass (before ``ClearOutput``): it reads each written
  question's evidence cells from the notebook as submitted (``assignments.grading.submission.evidence.collect``: outputs,
  and whether they can be trusted as the student's run) and keeps them in the notebook's metadata for
  the second pass. Whatever the student put under that metadata key is dropped first.
- ``ShowEvidence`` runs in the autograde pass, after execution: under each written answer it inserts a
  code cell holding those outputs, labelled as the student's own run (or flagged), and it marks the
  re-executed evidence cells' own outputs as the grading-mode run. It removes the kept metadata.

``show_evidence`` is that step on its own: the standalone door's notebook for formgrader
(``exports.nbgrader_gradebook.place_notebook``) gets the same cells and labels from the record.

Formgrader and ``nbgrader generate_feedback`` render the autograded notebook, so both show the evidence
under the answer. The inserted cell has no nbgrader metadata: it is neither graded nor executed.
"""

from __future__ import annotations

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from assignments import notebooks
from assignments.grading.submission.evidence import by_question, collect, label
from assignments.results.model import Evidence

KEPT_KEY = "course_submitted_evidence"
GRADING_RUN_NOTE = (
    "[grader] grading-mode re-run on tiny data: these are NOT the student's numbers; the "
    "student's own output of this cell is shown under {questions}\n"
)


class KeepEvidence(NbGraderPreprocessor):
    """Sanitize pass, before ClearOutput: read the submitted evidence and keep it in the metadata."""

    def preprocess(self, nb, resources):
        # nbgrader names the assignment only; the door names its course folder in this process's
        # environment (a test's toy course, too), as for the hidden-test regions.
        from assignments.grading.doors.nbgrader.hidden_region import kernel_assignment

        nb.metadata.pop(KEPT_KEY, None)
        assignment = resources.get("nbgrader", {}).get("assignment")
        try:
            evidence, _ = collect(nb, kernel_assignment(assignment))
        except Exception as error:  # noqa: BLE001 - grading goes on; the record's own evidence still holds
            self.log.warning("evidence of %s could not be read (%s)", assignment, type(error).__name__)
            return nb, resources
        if evidence:
            nb.metadata[KEPT_KEY] = [item.__dict__ for item in evidence]
        return nb, resources


def evidence_cell(question: str, items: list[Evidence]):
    """The code cell shown under a written answer: one label line, then each evidence cell's outputs."""
    cell = nbformat.v4.new_code_cell(
        f"# Evidence for {question}: the outputs the student submitted (kept by the grader, not re-executed)"
    )
    for item in items:
        cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text=f"=== {label(item)} ===\n"))
        for output in item.outputs:
            if output["kind"] == "image":
                cell.outputs.append(nbformat.v4.new_output("display_data", data={"image/png": output["png"]}))
            else:
                text = output["text"] if output["text"].endswith("\n") else output["text"] + "\n"
                cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text=text))
    return cell


def show_evidence(nb, evidence: list[Evidence], rerun: bool) -> None:
    """Under each written answer of ``nb``, a cell with its evidence as submitted, labelled; and a first
    line in each evidence cell itself saying what its outputs are. ``rerun``: they are nbgrader's
    grading-mode re-run (the nbgrader door), else the outputs as submitted, labelled like the copy
    under the answer (the standalone door shows the submitted notebook)."""
    grouped = by_question(evidence)
    shown_under: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    for question, items in grouped.items():
        for item in items:
            shown_under.setdefault(item.cell, []).append(question)
            labels.setdefault(item.cell, f"=== {label(item)} ===\n")
    cells = []
    for cell in nb.cells:
        gid = notebooks.grade_id(cell)
        if gid in shown_under and cell.get("cell_type") == "code":
            note = GRADING_RUN_NOTE.format(questions=", ".join(shown_under[gid])) if rerun else labels[gid]
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=note)] + list(cell.outputs)
        cells.append(cell)
        if gid in grouped and notebooks.is_manually_graded(cell):
            cells.append(evidence_cell(gid, grouped[gid]))
    nb.cells = cells


class ShowEvidence(NbGraderPreprocessor):
    """Autograde pass, after execution: the kept evidence under each written answer, the re-run marked."""

    def preprocess(self, nb, resources):
        kept = nb.metadata.pop(KEPT_KEY, None)
        if isinstance(kept, list):
            show_evidence(nb, [Evidence(**item) for item in kept if isinstance(item, dict)], rerun=True)
        return nb, resources
