"""Evidence: the outputs a written answer relies on, kept as the student submitted them.

A written question such as "compare the two transfer curves of your run" is graded against the numbers
the student saw on Colab. Both grading doors re-execute the notebook in grading mode (tiny data, random
offline models), which prints other numbers, so the TA needs the *submitted* outputs of the cells the
source names as the question's evidence (``notebooks.evidence_cells``). ``collect`` reads them from the
submitted notebook and says, per cell, whether they can be shown as the student's own run:

- ``kept``: the cell is there, holds outputs, its code is the release's and its outputs carry Jupyter's
  execution count;
- ``missing``: the student deleted the cell;
- ``not-run``: the cell is there without outputs (never run, or outputs cleared);
- ``edited``: the outputs cannot be from the release's code as Jupyter ran it: the cell's code differs
  from the release's, or an output has no execution count, or a result's count differs from its cell's
  (outputs typed into the file by hand rarely get these right).

What this cannot see: a notebook file is the student's to write, so an output whose text was changed in
the JSON with the counts left consistent looks like a real run. Nothing the student's kernel could sign
would help (the student can run the same signing code). A TA who doubts a number can ask for the run,
or compare with the class: evidence is a reason to trust the answer's numbers, not proof.

Every status other than ``kept`` is also a finding on the written question (``evidence-missing`` or
``evidence-edited``), so it reaches the record, the feedback and the class report, not only a label.
Outputs are kept as plain text and PNG images only (never HTML or JavaScript, which a page showing them
would have to trust; an output with nothing else keeps their source as text), within size limits.
"""

from __future__ import annotations

from assignments import notebooks
from assignments.course import Assignment
from assignments.results.model import Evidence, Finding

MISSING, EDITED = "evidence-missing", "evidence-edited"
MAX_TEXT = 20_000  # characters kept per output
MAX_PNG = 1_500_000  # base64 characters kept per image (about 1.1 MB of PNG)
MAX_OUTPUTS = 40  # outputs kept per cell (the last ones: a run's summary comes at the end)


def _same_code(submitted: str, release: str) -> bool:
    """Equal up to trailing spaces and blank lines, which editors change without anyone asking."""

    def norm(text: str) -> list[str]:
        return [line.rstrip() for line in text.replace("\r\n", "\n").strip().split("\n")]

    return norm(submitted) == norm(release)


def kept_outputs(cell) -> list[dict]:
    """The cell's outputs as text and PNG images, in order, within the size limits."""
    kept = []
    for output in cell.get("outputs", []) or []:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            kept.append({"kind": "text", "text": notebooks.text(output.get("text"))[:MAX_TEXT]})
        elif kind == "error":
            kept.append(
                {
                    "kind": "error",
                    "text": f"{notebooks.text(output.get('ename'))}: {notebooks.text(output.get('evalue'))}"[:MAX_TEXT],
                }
            )
        elif kind in ("execute_result", "display_data"):
            data = output.get("data") if isinstance(output.get("data"), dict) else {}
            png = notebooks.text(data.get("image/png")).replace("\n", "")
            if png and len(png) <= MAX_PNG:
                kept.append({"kind": "image", "png": png})
            elif "text/plain" in data:
                kept.append({"kind": "text", "text": notebooks.text(data["text/plain"])[:MAX_TEXT]})
            elif data:  # HTML, SVG, JavaScript...: kept as its source text, never to be rendered
                mime = sorted(data)[0]
                kept.append({"kind": "text", "text": f"[{mime}] {notebooks.text(data[mime])}"[:MAX_TEXT]})
    return kept[-MAX_OUTPUTS:]


def _counts_consistent(cell) -> bool:
    count = cell.get("execution_count")
    if not isinstance(count, int):
        return False
    return all(
        o.get("execution_count") == count
        for o in cell.get("outputs", [])
        if isinstance(o, dict) and o.get("output_type") == "execute_result"
    )


def judge(cell, release_cell) -> tuple[str, str]:
    """(status, grader-written note) of one evidence cell; ``cell`` None: not in the submission."""
    if cell is None:
        return "missing", "the cell is not in the submitted notebook"
    if not cell.get("outputs"):
        return "not-run", "the cell has no outputs (it was not run, or its outputs were cleared)"
    if release_cell is not None and not _same_code(
        notebooks.text(cell.get("source")), notebooks.text(release_cell.get("source"))
    ):
        return "edited", "the cell's code differs from the release's, so its outputs are not the release code's"
    if not _counts_consistent(cell):
        return "edited", "its outputs carry no consistent execution count, as Jupyter writes for a cell it ran"
    return "kept", ""


def collect(submission, assignment: Assignment, template=None, recovery=None) -> tuple[list[Evidence], list[Finding]]:
    """Evidence of every written question of ``assignment`` in ``submission`` (a notebook as submitted,
    outputs included), and a finding for each evidence cell that is not ``kept``.

    Cells are found by grade_id after ``recover`` (so a notebook rebuilt in Colab is read like an intact
    one); ``template`` is the release notebook (default: the assignment's). ``recovery``: that
    ``recover(submission, template)`` when the caller has it already (``submission.prepare`` does)."""
    from assignments import notebooks
    from assignments.grading.submission.load import default_template
    from assignments.grading.submission.recover import recover

    template = template if template is not None else default_template(assignment)
    try:
        named_by = assignment.source_notebook()
    except OSError:
        # A copy of the course without source notebooks (the Gradescope bundle, a PrairieLearn question's
        # tests/): the release keeps each written question's metadata, so it names the same cells.
        named_by = template
    wanted = notebooks.evidence_cells(named_by)
    if not wanted:
        return [], []
    release = {notebooks.grade_id(c): c for c in template.cells if notebooks.grade_id(c)}
    submitted = {}
    found = recovery if recovery is not None else recover(submission, template)
    for cell in found.notebook.cells:
        gid = notebooks.grade_id(cell)
        if gid and cell.get("cell_type") == "code":
            submitted.setdefault(gid, cell)
    evidence, findings = [], []
    for question, cells in wanted.items():
        for gid in cells:
            cell = submitted.get(gid)
            status, note = judge(cell, release.get(gid))
            count = cell.get("execution_count") if cell is not None else None
            evidence.append(
                Evidence(
                    question,
                    gid,
                    status,
                    note,
                    count if isinstance(count, int) else None,
                    kept_outputs(cell) if cell is not None and status != "missing" else [],
                )
            )
            if status != "kept":
                code = EDITED if status == "edited" else MISSING
                findings.append(
                    Finding(
                        code,
                        f"evidence for {question}: cell {gid}: {note}; the TA sees this beside the answer",
                        "warning",
                        question,
                    )
                )
    return evidence, findings


def by_question(evidence: list[Evidence]) -> dict[str, list[Evidence]]:
    grouped: dict[str, list[Evidence]] = {}
    for item in evidence:
        grouped.setdefault(item.question, []).append(item)
    return grouped


def label(item: Evidence) -> str:
    """The one line that says what the TA is looking at (every view of the evidence uses it)."""
    count = f", run as [{item.execution_count}]" if item.execution_count is not None else ""
    if item.status == "kept":
        return f"Student's own run: output of cell {item.cell} as submitted{count} (not re-executed by the grader)"
    return f"FLAGGED ({item.status}) evidence cell {item.cell}: {item.note}; outputs shown as submitted{count}"
