"""Repair damaged submissions so that plain ``nbgrader autograde`` grades them (issue #11, item 2).

nbgrader finds a notebook's answers and tests by the grade_id in each cell's metadata. A notebook rebuilt
in Colab, cleared by an editor, kept from an older release or saved in another encoding has lost those
labels (or cannot be read as UTF-8), and nbgrader fails on it or scores it 0. The standalone door grades
such notebooks already: ``submission.prepare`` reads the file (``decoding`` picks the encoding), refuses
another assignment's notebook (``restore.check_assignment``), and rebuilds the notebook that door executes
(``restore.restore``, after ``recover.recover`` found the cells by content).

Repair writes that rebuilt notebook to disk: nbformat 4, UTF-8, the release's nbgrader metadata on every
cell, under the release's notebook name in nbgrader's ``submitted/<student>/<assignment>/`` layout. So
nbgrader grades what the standalone door grades, and the two doors can agree. Nothing here matches
cells: the report (``repair.json``, ``report_table``) says per student how recover found the cells, what
restore changed, and why a notebook was not repaired.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from assignments import notebooks
from assignments.course import Assignment
from assignments.grading.doors.nbgrader.layout import submitted_path
from assignments.grading.submission.load import default_template
from assignments.grading.submission.preparation import prepare
from assignments.grading.submission.recover import METHODS
from assignments.grading.testkit.kernel_text import describe_exception
from assignments.results.model import Finding

REPORT = "repair.json"
CELL_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # what nbformat 4.5 accepts as a cell id


@dataclass
class Repair:
    """What repair did with one student's notebook."""

    student: str
    submitted: str  # the file the student sent
    repaired: str | None = None  # the repaired copy; None when it was not repaired
    matched: dict = field(default_factory=dict)  # recover.METHODS -> release cells found that way
    missing: list = field(default_factory=list)  # answer grade_ids found nowhere (the empty stub is used)
    renamed: list = field(default_factory=list)  # [grade_id the cell carried, the release's grade_id]
    changes: list = field(default_factory=list)  # Findings: how the file was read, what restore changed
    refused: Finding | None = None  # why the notebook was not repaired

    @property
    def status(self) -> str:
        if self.refused is not None:
            return "not repaired"
        return "repaired" if self.changes else "unchanged"

    def how(self) -> str:
        """'46 by id, 4 by text' (methods that found nothing are left out)."""
        return ", ".join(f"{n} by {m}" for m, n in self.matched.items() if n) or "no cells matched"

    def findings(self) -> list[Finding]:
        """What the grading record of this student's nbgrader run should say about the repair."""
        if self.refused is not None:
            return [
                Finding(
                    "not-repaired",
                    f"the notebook could not be repaired for nbgrader "
                    f"({self.refused.message}); nbgrader graded it as sent",
                    "error",
                )
            ]
        if not self.changes:
            return []
        # No path in the message: records reach students' feedback; repair.json says where the copy is.
        note = Finding(
            "repaired",
            f"nbgrader graded a repaired copy of this notebook, with the release's "
            f"nbgrader metadata restored on its cells ({self.how()})",
            "info",
        )
        return [note, *self.changes]

    def to_dict(self) -> dict:
        return {"status": self.status, **asdict(self)}


def repair_submission(submission: Path, student: str, template, target: Path) -> Repair:
    """Repair one notebook file into ``target``. Never raises: what fails is the record's ``refused``."""
    record = Repair(student, str(submission))
    try:
        _repair(record, Path(submission), template, Path(target))
    except Exception as error:  # noqa: BLE001 - one student's notebook never stops the class
        record.refused = Finding(
            "repair-failed", f"repair failed on this notebook ({describe_exception(error)}); grade it by hand", "error"
        )
    if record.refused is not None:
        record.repaired = None
        Path(target).unlink(missing_ok=True)  # an earlier run's copy must not be graded in its place
    return record


def _repair(record: Repair, submission: Path, template, target: Path) -> None:
    # The evidence is left as submitted (``for_nbgrader``); audit and shortcuts are the graders' business.
    prepared = prepare(None, submission, template=template, evidence=False, audit=False, shortcuts=False)
    if prepared.rejected:
        record.refused = prepared.rejection
        return
    found = prepared.recovery
    record.matched = {method: found.count(method) for method in METHODS}
    record.renamed = [list(pair) for pair in found.renamed]
    record.missing = [
        notebooks.grade_id(c)
        for c in template.cells
        if notebooks.is_answer(c) and notebooks.grade_id(c) not in found.how
    ]
    record.changes = prepared.read_findings + prepared.restore_findings
    evidence_ids = {gid for cells in notebooks.evidence_cells(template).values() for gid in cells}
    write_notebook(for_nbgrader(prepared.restored, found.notebook, evidence_ids), target)
    record.repaired = str(target)


def for_nbgrader(restored, relabelled, evidence_ids=frozenset()):
    """``restored`` (restore's output) made a valid nbformat-4 file: images attached to written answers
    kept (restore drops them; a person grading the answer needs them), the written answers' evidence cells
    as submitted (code, outputs and counts: nbgrader puts the release's code back before it runs them, and
    the evidence checks see what the student sent; ``evidence_ids`` names them), cells the student added reduced to their type, text
    and id, and every cell id present and unique."""
    nb = copy.deepcopy(restored)
    attached, evidence = {}, {}
    for cell in relabelled.cells:
        gid = notebooks.grade_id(cell)
        if gid and gid not in attached and cell.get("cell_type") == "markdown" and cell.get("attachments"):
            attached[gid] = cell["attachments"]
        if gid in evidence_ids and gid not in evidence and cell.get("cell_type") == "code":
            evidence[gid] = cell
    seen: set[str] = set()
    for index, cell in enumerate(nb.cells):
        gid = notebooks.grade_id(cell)
        if gid is None:
            nb.cells[index] = cell = _plain(cell)
        elif gid in attached and cell.get("cell_type") == "markdown":
            cell["attachments"] = copy.deepcopy(attached[gid])
        elif gid in evidence and cell.get("cell_type") == "code":
            for key in ("source", "outputs", "execution_count"):
                cell[key] = copy.deepcopy(evidence[gid].get(key))
        if nb.nbformat_minor >= 5:
            if not isinstance(cell.get("id"), str) or not CELL_ID.match(cell["id"]) or cell["id"] in seen:
                cell["id"] = _fresh_id(seen)
            seen.add(cell["id"])
        else:
            cell.pop("id", None)
    nbformat.validate(nb)
    return nb


def _plain(cell):
    """A student's own cell as a fresh cell: editors' metadata and anything out of schema left behind."""
    source = notebooks.cell_text(cell)
    kind = cell.get("cell_type")
    fresh = (
        nbformat.v4.new_code_cell(source)
        if kind == "code"
        else nbformat.v4.new_raw_cell(source)
        if kind == "raw"
        else nbformat.v4.new_markdown_cell(source)
    )
    if kind == "markdown" and isinstance(cell.get("attachments"), dict):
        fresh["attachments"] = copy.deepcopy(cell["attachments"])
    if isinstance(cell.get("id"), str):
        fresh["id"] = cell["id"]
    return fresh


def _fresh_id(taken: set[str]) -> str:
    from nbformat.corpus.words import generate_corpus_id

    while True:
        candidate = generate_corpus_id()
        if candidate not in taken:
            return candidate


def write_notebook(nb, target: Path) -> None:
    """Write ``nb`` as a UTF-8 notebook file, whole or not at all."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    partial.write_text(notebooks.dumps(nb), encoding="utf-8")
    partial.replace(target)


def repair_class(assignment: Assignment, submissions: dict, out: Path, template=None) -> list[Repair]:
    """Repair ``{student: notebook file}`` into ``out/submitted/`` and write ``out/repair.json``."""
    template = default_template(assignment) if template is None else template
    repairs = [
        repair_submission(Path(path), student, template, submitted_path(out, assignment, student))
        for student, path in sorted(submissions.items())
    ]
    save_report(assignment, repairs, Path(out) / REPORT)
    return repairs


def save_report(assignment: Assignment, repairs: list[Repair], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "assignment": assignment.name,
        "methods": list(METHODS),
        "students": [r.to_dict() for r in repairs],
    }
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def report_table(repairs: list[Repair], title: str = "") -> str:
    """One row per student: release cells found by each method, answers found nowhere, the outcome and
    what changed (finding codes; repair.json has the messages); then why each refused notebook was."""
    from assignments.results.table import aligned

    header = ["student", *(f"by {m}" for m in METHODS), "answers missing", "result", "changes"]
    rows = []
    for r in repairs:
        counts = [r.matched.get(m, 0) if r.refused is None else "-" for m in METHODS]
        codes = list(dict.fromkeys(f.code for f in r.changes))
        rows.append(
            [
                r.student,
                *counts,
                len(r.missing) if r.refused is None else "-",
                r.status,
                r.refused.code if r.refused is not None else ", ".join(codes) or "none",
            ]
        )
    lines = [aligned(header, rows, title)] if repairs else [f"{title}\n(no submissions)"]
    lines += [f"{r.student}: not repaired: {r.refused.message}" for r in repairs if r.refused is not None]
    return "\n".join(lines)


def summary(repairs: list[Repair]) -> str:
    """'7 notebook(s): 5 unchanged, 1 repaired, 1 not repaired'."""
    counts: dict[str, int] = {}
    for r in repairs:
        counts[r.status] = counts.get(r.status, 0) + 1
    return f"{len(repairs)} notebook(s): " + ", ".join(f"{n} {status}" for status, n in counts.items())


__all__ = ["Repair", "repair_submission", "repair_class", "for_nbgrader", "report_table", "summary", "REPORT"]
