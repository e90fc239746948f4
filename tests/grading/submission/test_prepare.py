"""``submission.prepare``: one preparation of a submission (read, assignment check, recovery, restore,
evidence, audit, shortcuts) that every consumer calls, with recovery run once (issue #27).

The standalone door is followed without a kernel: its sandbox is replaced by one that records the cells
it is given and stops there, so what the door did before executing anything can be compared with what
``prepare`` returns."""

from __future__ import annotations

import nbformat
import pytest

from assignments import notebooks
from assignments.course import default
from assignments.demo import students as demo_class
from assignments.demo.students import pasted_into_colab
from assignments.grading.doors import standalone
from assignments.grading.doors.nbgrader import door as nbgrader_door
from assignments.grading.doors.nbgrader import repair
from assignments.grading.submission import Prepared, preparation, prepare
from assignments.grading.submission import recover as recover_module
from assignments.grading.submission import restore as restore_module
from assignments.grading.submission.load import default_template
from assignments.handgrading import written
from assignments.results.model import SubmissionResult
from assignments.similarity import compare as similarity
from tests.fixtures.damaged import metadata_stripped, renamed, with_one_mistake
from tests.helpers import QUICKEST

ASSIGNMENT = QUICKEST
OTHER = next(a for a in ("transformers", "rnn_attention", "transfer_lm") if a != ASSIGNMENT)
HW = default().assignment(ASSIGNMENT)


class Stop(Exception):
    """Raised by the recording sandbox once the door has handed it the cells: nothing more is needed."""


class RecordingSandbox:
    """Stands in for ``sandbox.Sandbox`` in the standalone door: keeps the cells the door would execute."""

    executed: list = []

    def __init__(self, raw, name, limits=None, hide=()):
        self.raw = raw

    def start(self):
        pass

    def execute_cells(self, cells):
        RecordingSandbox.executed = list(cells)
        raise Stop("the cells are recorded; no kernel is needed")

    def close(self):
        pass


@pytest.fixture
def door(monkeypatch):
    """``grade_submission`` stopped just before the kernel runs a cell; returns (record, executed cells)."""
    monkeypatch.setattr(standalone, "Sandbox", RecordingSandbox)
    RecordingSandbox.executed = []

    def grade(submission):
        result = standalone.grade_submission(HW, submission, "someone")
        return result, RecordingSandbox.executed

    return grade


@pytest.fixture
def recoveries(monkeypatch):
    """Counts every call of ``recover``, wherever it is looked up (the modules that bind it by name, and
    the recover module for those that import it when called)."""
    calls = []
    real = recover_module.recover

    def counting(submission, template):
        calls.append(1)
        return real(submission, template)

    for module in (recover_module, restore_module, preparation, repair):
        if hasattr(module, "recover"):
            monkeypatch.setattr(module, "recover", counting)
    return calls


@pytest.fixture(scope="module")
def original():
    return with_one_mistake(HW)


def written_to(tmp_path, nb, name="submission.ipynb"):
    path = tmp_path / name
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    return path


def door_cells(restored):
    """The cells the standalone door hands its sandbox for a restored notebook."""
    return [
        (notebooks.grade_id(cell) or f"code cell {index + 1}", notebooks.cell_text(cell))
        for index, cell in enumerate(notebooks.cells_to_run(restored))
    ]


def test_recovery_runs_once_per_submission_through_the_standalone_door(door, recoveries, original, tmp_path):
    result, executed = door(written_to(tmp_path, pasted_into_colab(original)))
    assert executed, [f.message for f in result.findings]
    assert len(recoveries) == 1, f"recover ran {len(recoveries)} times for one submission"


def test_recovery_runs_once_per_submission_in_every_other_consumer(recoveries, original, tmp_path):
    path = written_to(tmp_path, metadata_stripped(original))
    ctx = similarity.context(HW)
    consumers = {
        "similarity": lambda: similarity.read_answers(path, ctx),
        "repair": lambda: repair.repair_submission(path, "someone", ctx.template, tmp_path / "repaired.ipynb"),
        "written": lambda: written.read_answers(HW, path),
        "nbgrader door": lambda: nbgrader_door.prepare_quietly(HW, path),
    }
    counted = {}
    for name, consume in consumers.items():
        recoveries.clear()
        consume()
        counted[name] = len(recoveries)
    assert counted == dict.fromkeys(consumers, 1), counted


def test_the_nbgrader_doors_checks_share_one_preparation(recoveries, original, tmp_path):
    path = written_to(tmp_path, metadata_stripped(original))
    prepared = nbgrader_door.prepare_quietly(HW, path)
    record = SubmissionResult(student="someone", assignment=ASSIGNMENT, door="nbgrader")
    found = nbgrader_door.shortcut_findings(HW, path, prepared)
    nbgrader_door.attach_evidence(record, HW, path, prepared)
    assert len(recoveries) == 1
    assert found == prepared.shortcut_findings and prepared.audit_findings == []
    assert record.evidence == prepared.evidence and record.findings == prepared.evidence_findings
    # Called alone (as before), each check prepares the notebook itself and finds the same.
    alone = SubmissionResult(student="someone", assignment=ASSIGNMENT, door="nbgrader")
    nbgrader_door.attach_evidence(alone, HW, path)
    assert nbgrader_door.shortcut_findings(HW, path) == found
    assert alone.evidence == record.evidence and alone.findings == record.findings


@pytest.mark.parametrize("damage", [metadata_stripped, renamed, pasted_into_colab])
def test_a_damaged_submission_prepares_as_the_door_reports_it(door, original, tmp_path, damage):
    path = written_to(tmp_path, damage(original))
    prepared = prepare(HW, path)
    result, executed = door(path)
    assert not prepared.rejected
    # The door adds one finding of its own: the recording sandbox stopping it before any test ran.
    assert [(f.code, f.message) for f in result.findings[:-1]] == [(f.code, f.message) for f in prepared.findings]
    assert result.findings[-1].code == "grader-error"
    assert executed == door_cells(prepared.restored)
    assert result.evidence == prepared.evidence
    assert "cells-recovered" in {f.code for f in prepared.restore_findings}
    # Recovered, the damaged notebook runs the cells the intact one runs.
    assert door_cells(prepared.restored) == door_cells(
        prepare(HW, written_to(tmp_path, original, "intact.ipynb")).restored
    )


def test_a_file_that_is_not_json_comes_back_rejected_with_its_finding(door):
    raw = b'{"cells": [ this is not JSON'
    prepared = prepare(HW, raw)
    assert isinstance(prepared, Prepared) and prepared.rejected
    assert prepared.rejection.code == "invalid-json" and prepared.rejection.severity == "error"
    assert prepared.findings == [prepared.rejection]
    assert prepared.notebook is None and prepared.recovery is None and prepared.restored is None
    result, executed = door(raw)
    assert result.status == "rejected" and executed == []
    assert result.findings == prepared.findings


def test_another_assignments_notebook_comes_back_rejected_after_recovery(tmp_path):
    prepared = prepare(
        HW, written_to(tmp_path, pasted_into_colab(demo_class.filled_release(default().assignment(OTHER))))
    )
    assert prepared.rejected and prepared.rejection.code == "wrong-assignment"
    assert prepared.recovery is not None and prepared.restored is None
    assert prepared.findings[-1] is prepared.rejection


def test_steps_switched_off_leave_their_findings_empty(original, tmp_path):
    prepared = prepare(
        None,
        written_to(tmp_path, original),
        template=default_template(HW),
        evidence=False,
        audit=False,
        shortcuts=False,
    )
    assert not prepared.rejected and prepared.restored is not None
    assert prepared.evidence == [] and prepared.evidence_findings == []
    assert prepared.audit_findings == [] and prepared.shortcut_findings == []


def test_an_evidence_failure_is_a_finding_and_the_submission_still_prepares(monkeypatch, original, tmp_path):
    def broken(*args, **kwargs):
        raise KeyError("outputs")

    monkeypatch.setattr(preparation, "collect_evidence", broken)
    prepared = prepare(HW, written_to(tmp_path, original))
    assert not prepared.rejected and isinstance(prepared.evidence_error, KeyError)
    assert [f.code for f in prepared.evidence_findings] == ["evidence-unread"]
    assert prepared.findings.index(prepared.evidence_findings[0]) == len(prepared.read_findings) + len(
        prepared.restore_findings
    )
