"""Standalone door, without a kernel: reading submissions, restoring cells from the template, rejecting
what is not this assignment's notebook, the static audit, and `grade_submission` never raising."""

import nbformat
import pytest

from assignments import notebooks
from assignments.course import default
from assignments.grading.doors.standalone import grade_submission
from assignments.grading.submission.audit import audit_source
from assignments.grading.submission.load import load_submission
from assignments.grading.submission.restore import check_assignment, restore
from tests.fixtures import structural


def codes(findings):
    return {f.code for f in findings}


def locked_cells(nb):
    """What a student must not be able to change: locked and test cells, source and grading metadata."""
    return [
        (notebooks.grade_id(c), c.cell_type, c.source, notebooks.nbgrader(c).get("points"))
        for c in nb.cells
        if notebooks.is_locked(c)
    ]


def test_reference_restores_without_findings(toy_assignment):
    restored, findings = restore(toy_assignment.reference(), toy_assignment.release)
    assert findings == []
    assert locked_cells(restored) == locked_cells(toy_assignment.release)
    answers = {notebooks.grade_id(c): c.source for c in restored.cells if notebooks.is_answer(c)}
    assert "return a + b" in answers["add"]


def test_blank_release_restores_without_findings(toy_assignment):
    restored, findings = restore(toy_assignment.release, toy_assignment.release)
    assert findings == []
    assert notebooks.questions(restored) == notebooks.questions(toy_assignment.release)


TAMPERING = [
    name
    for name in structural.EXPECTED
    if name not in structural.REJECTED and name not in ("invalid_json", "not_a_notebook", "empty_file", "nbformat3")
]


@pytest.mark.parametrize("name", TAMPERING)
def test_tampering_is_reported_and_undone(toy_assignment, name):
    tampered = getattr(structural, name)(toy_assignment.reference())
    restored, findings = restore(tampered, toy_assignment.release)
    assert structural.EXPECTED[name] <= codes(findings), [f.message for f in findings]
    # whatever was done, the tests that run and their points are the template's
    assert locked_cells(restored) == locked_cells(toy_assignment.release)
    assert notebooks.questions(restored) == notebooks.questions(toy_assignment.release)
    for finding in findings:
        assert finding.message and finding.severity in ("error", "warning", "info")


def test_added_cell_stays_after_its_neighbour(toy_assignment):
    restored, _ = restore(structural.add_helper_cell(toy_assignment.reference()), toy_assignment.release)
    ids = [notebooks.grade_id(c) for c in restored.cells]
    helper = next(i for i, c in enumerate(restored.cells) if "my_helper" in c.source)
    assert ids[helper - 1] == "add" and ids[helper] is None


def test_deleted_answer_uses_the_stub(toy_assignment):
    restored, findings = restore(structural.delete_answer(toy_assignment.reference(), "scale"), toy_assignment.release)
    assert "answer-missing" in codes(findings)
    scale = next(c for c in restored.cells if notebooks.grade_id(c) == "scale")
    assert "NotImplementedError" in scale.source


def test_duplicated_answer_runs_both_copies_in_order(toy_assignment):
    nb = toy_assignment.reference()
    index = [notebooks.grade_id(c) for c in nb.cells].index("add")
    copy = nbformat.from_dict(dict(nb.cells[index]))
    copy.source = "def add(a, b):\n    return 'second copy'"
    nb.cells.insert(index + 1, copy)
    restored, findings = restore(nb, toy_assignment.release)
    assert "cell-duplicated" in codes(findings)
    sources = [c.source for c in notebooks.cells_to_run(restored)]
    first = next(i for i, s in enumerate(sources) if "return a + b" in s)
    assert "second copy" in sources[first + 1]
    assert "nbgrader" not in restored.cells[[c.source for c in restored.cells].index(copy.source)].metadata


def test_unknown_cell_claiming_points_is_worth_nothing(toy_assignment):
    nb = toy_assignment.reference()
    nb.cells.append(
        nbformat.v4.new_code_cell(
            "print('bonus')",
            metadata={
                "nbgrader": {"grade": True, "solution": False, "locked": True, "points": 50, "grade_id": "bonus_tests"}
            },
        )
    )
    restored, findings = restore(nb, toy_assignment.release)
    assert "unknown-grade-id" in codes(findings)
    assert [q.grade_id for q in notebooks.questions(restored)] == ["add_tests", "scale_tests", "scale_written"]


def test_other_assignment_is_rejected_and_stripped_notebook_is_not(toy_assignment):
    assert check_assignment(toy_assignment.reference(), toy_assignment.release) is None
    assert check_assignment(structural.stripped(toy_assignment.reference()), toy_assignment.release) is None
    finding = check_assignment(structural.other_assignment(toy_assignment.reference()), toy_assignment.release)
    assert finding is not None and finding.code == "wrong-assignment" and finding.severity == "error"


@pytest.mark.parametrize("name", ["invalid_json", "not_a_notebook", "empty_file"])
def test_unreadable_files_are_reported(toy_assignment, name):
    nb, raw, findings = load_submission(getattr(structural, name)(toy_assignment.reference()))
    assert nb is None and structural.EXPECTED[name] <= codes(findings)


def test_deeply_nested_json_is_refused_not_a_crash():
    """json's decoder recurses per level; the reader intake and the doors share must say so, not raise."""
    nb, _, findings = load_submission(b'{"cells": ' + b"[" * 200_000 + b"]" * 200_000 + b"}")
    assert nb is None and [f.code for f in findings] == ["invalid-json"]


def test_nbformat3_is_converted_and_keeps_its_cells(toy_assignment):
    nb, raw, findings = load_submission(structural.nbformat3(toy_assignment.reference()))
    assert "old-nbformat" in codes(findings) and nb.nbformat == 4
    restored, tampering = restore(nb, toy_assignment.release)
    assert tampering == []
    assert "return a + b" in next(c.source for c in restored.cells if notebooks.grade_id(c) == "add")


def test_malformed_nbgrader_metadata_is_dropped(toy_assignment):
    nb = toy_assignment.reference()
    nb.cells[2].metadata["nbgrader"] = "points: 100"
    nb.cells[3].metadata["nbgrader"]["grade_id"] = ["add_tests"]
    loaded, _, findings = load_submission(nbformat.writes(nb).encode())
    assert [f.code for f in findings] == ["metadata-invalid", "metadata-invalid"]
    restored, tampering = restore(loaded, toy_assignment.release)
    # the cells whose metadata was dropped are found again by content, never by what they claimed
    assert "cells-recovered" in codes(tampering), [f.message for f in tampering]
    assert "return a + b" in next(c.source for c in restored.cells if notebooks.grade_id(c) == "add")
    assert locked_cells(restored) == locked_cells(toy_assignment.release)


def test_missing_file_and_folder(tmp_path):
    assert "missing-file" in codes(load_submission(tmp_path / "nope.ipynb")[2])
    assert "missing-file" in codes(load_submission(tmp_path)[2])


REJECTED_INPUTS = {
    "missing": lambda toy_, tmp: tmp / "absent.ipynb",
    "folder": lambda toy_, tmp: tmp,
    "invalid_json": lambda toy_, tmp: structural.invalid_json(toy_.reference()),
    "not_a_notebook": lambda toy_, tmp: structural.not_a_notebook(toy_.reference()),
    "empty_file": lambda toy_, tmp: structural.empty_file(toy_.reference()),
    "other_assignment": lambda toy_, tmp: toy_.write(structural.other_assignment(toy_.reference()), "other.ipynb"),
    "binary": lambda toy_, tmp: b"\x89PNG\r\n\x1a\n\x00\x00",
    "json_list": lambda toy_, tmp: b"[1, 2, 3]",
    "nbformat_99": lambda toy_, tmp: b'{"nbformat": 99, "nbformat_minor": 0, "cells": []}',
}


@pytest.mark.parametrize("name", sorted(REJECTED_INPUTS))
def test_rejected_submissions_get_zero_and_a_finding(toy_assignment, tmp_path, name):
    submission = REJECTED_INPUTS[name](toy_assignment, tmp_path)
    result = grade_submission(toy_assignment.assignment, submission, name, **toy_assignment.overrides())
    assert result.status == "rejected" and result.door == "standalone"
    assert result.autograded_points == 0 and result.autograded_max == 5
    errors = [f for f in result.findings if f.severity == "error"]
    assert errors and all(f.message for f in errors)
    assert "total_s" in result.timings


def test_grade_submission_never_raises(toy_assignment):
    for weird in (None, 12, object(), "", b"{"):
        result = grade_submission(toy_assignment.assignment, weird, "weird", **toy_assignment.overrides())
        assert result.status == "rejected" and result.autograded_points == 0
    result = grade_submission(default().assignment("no_such_assignment"), b"{}", "x")
    assert result.status == "rejected" and result.findings[0].code == "unknown-assignment"


def test_audit_notes_what_honest_answers_do_not_do():
    notes = audit_source(
        "import os, sys, torch, builtins\nimport pytest\nos._exit(1)\nsys.exit()\n"
        "torch.allclose = lambda *a: True\nbuiltins.print = None\n"
        "open('/work/main/autograder/x.py').read()\ndef hidden_tests(*a):\n    return 10\n"
    )
    text = "; ".join(notes)
    for expected in (
        "imports pytest",
        "calls os._exit",
        "calls sys.exit",
        "replaces torch.allclose",
        "replaces builtins.print",
        "opens '/work/main/autograder/x.py'",
        "defines hidden_tests",
    ):
        assert expected in text
    assert audit_source("def add(a, b):\n    return a + b\n") == []
    assert audit_source("def broken(:\n") == []
