"""One submission made ready to grade, the same way for every consumer: ``prepare`` reads the file, checks
it is this assignment's notebook, recovers cells whose nbgrader metadata was lost, restores the locked and
test cells from the release, reads the written answers' evidence, audits and checks for forbidden
shortcuts, and returns everything it found in one ``Prepared`` record.

The standalone door uses all of it; the nbgrader door its shortcut findings and evidence, ``course
repair`` its recovery and restored notebook, the similarity report and the written-answer export the
answers. Each step that a consumer does not need is switched off by a keyword, never spelled out again
elsewhere, so every consumer sees the same cells: recovery runs once, and the check, restore and the
evidence all read that one record.

The module is not called ``prepare`` so that ``submission.prepare`` always names the function (the
package's names are looked up lazily, and an imported submodule of the same name would take its place).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assignments.course import Assignment
from assignments.grading.submission.audit import audit as audit_cells
from assignments.grading.submission.evidence import collect as collect_evidence
from assignments.grading.submission.load import default_template, load_submission
from assignments.grading.submission.recover import Recovery, recover
from assignments.grading.submission.restore import check_assignment, restore
from assignments.grading.submission.shortcuts import check_restored
from assignments.grading.testkit.kernel_text import describe_exception
from assignments.results.model import Evidence, Finding


@dataclass
class Prepared:
    """What ``prepare`` made of one submission. A step that did not run leaves its fields empty: all of
    them after a rejection, the evidence, audit or shortcut findings when switched off."""

    notebook: object | None = None  # nbformat-4 notebook as read, outputs included; None: unreadable
    raw: bytes | None = None  # the file's bytes (the sandbox is given these, not the notebook)
    template: object | None = None  # the release notebook it was checked and restored against
    recovery: Recovery | None = None  # how each release cell was found; its notebook is relabelled
    restored: object | None = None  # the notebook to execute (``restore.restore``), no outputs
    evidence: list[Evidence] = field(default_factory=list)  # the written answers' evidence cells
    errors: list[Finding] = field(default_factory=list)  # why it was rejected; empty: not rejected
    read_findings: list[Finding] = field(default_factory=list)  # how the file was read (encoding, editor)
    restore_findings: list[Finding] = field(default_factory=list)  # recovery and every change restore undid
    evidence_findings: list[Finding] = field(default_factory=list)  # evidence cells not kept as run
    audit_findings: list[Finding] = field(default_factory=list)  # suspicious code (decides nothing)
    shortcut_findings: list[Finding] = field(default_factory=list)  # forbidden library calls
    evidence_error: Exception | None = None  # what stopped reading the evidence (also an evidence finding)

    @property
    def rejected(self) -> bool:
        return bool(self.errors)

    @property
    def rejection(self) -> Finding | None:
        """The finding that says why the submission is not graded (the first error)."""
        return self.errors[0] if self.errors else None

    @property
    def findings(self) -> list[Finding]:
        """Every finding, in the order the standalone door's record lists them."""
        return [
            *self.read_findings,
            *self.errors,
            *self.restore_findings,
            *self.evidence_findings,
            *self.audit_findings,
            *self.shortcut_findings,
        ]


def prepare(
    assignment: Assignment | None,
    submission,
    *,
    template=None,
    evidence: bool = True,
    audit: bool = True,
    shortcuts: bool = True,
    shortcut_rules: dict | None = None,
) -> Prepared:
    """Prepare ``submission`` (a path or the file's bytes) of ``assignment`` (an ``Assignment``)
    for grading; see ``Prepared``. A file that cannot be read, or another assignment's notebook, comes back
    ``rejected`` with its finding; anything else the steps raise is the caller's to report.

    ``template``: the release notebook (default: the assignment's, ``load.default_template``); with it
    given and ``evidence`` and ``shortcuts`` off, ``assignment`` may be None. ``evidence``, ``audit``,
    ``shortcuts``: run that step. ``shortcut_rules`` replaces the assignment's (``shortcuts.check_restored``).
    """
    prepared = read(submission)
    if prepared.rejected:
        return prepared
    prepared.template = template if template is not None else default_template(assignment)
    # Recovery first, and only here: the assignment check counts the cells it found, restore relabels by
    # it, and the evidence cells are found by the grade_ids it gave back.
    prepared.recovery = recover(prepared.notebook, prepared.template)
    wrong = check_assignment(prepared.notebook, prepared.template, prepared.recovery)
    if wrong is not None:
        prepared.errors.append(wrong)
        return prepared
    prepared.restored, prepared.restore_findings = restore(prepared.notebook, prepared.template, prepared.recovery)
    if evidence:
        # From the notebook as read: restore drops every output, and the outputs are the evidence.
        read_evidence(prepared, assignment)
    # The audit and the shortcut check read the restored notebook: what runs, not what was sent.
    if audit:
        prepared.audit_findings = audit_cells(prepared.restored)
    if shortcuts:
        prepared.shortcut_findings = check_restored(assignment, prepared.restored, prepared.template, shortcut_rules)
    return prepared


def read(submission) -> Prepared:
    """The first step: the file read defensively (``load.load_submission``); rejected when unreadable."""
    notebook, raw, found = load_submission(submission)
    prepared = Prepared(notebook=notebook, raw=raw)
    prepared.read_findings = [f for f in found if f.severity != "error"]
    prepared.errors = [f for f in found if f.severity == "error"]
    if notebook is None and not prepared.errors:
        prepared.errors.append(Finding("not-a-notebook", "the submission could not be read as a notebook", "error"))
    return prepared


def read_evidence(prepared: Prepared, assignment: Assignment) -> None:
    """The evidence step: a failure is a finding, never a lost grading (malformed outputs must not cost
    the autograded points); ``evidence_error`` keeps it for a consumer that reports it otherwise."""
    try:
        prepared.evidence, prepared.evidence_findings = collect_evidence(
            prepared.notebook, assignment, prepared.template, prepared.recovery
        )
    except Exception as error:  # noqa: BLE001 - see the docstring
        prepared.evidence_error = error
        prepared.evidence_findings = [
            Finding(
                "evidence-unread",
                f"the written answers' evidence could not be read ({describe_exception(error)}); the TA sees none",
                "warning",
            )
        ]


__all__ = ["prepare", "Prepared", "read", "read_evidence"]
