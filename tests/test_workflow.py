"""`course autograde` (``workflow.autograde_class``): intake, repair, real nbgrader per student with
progress, a standalone second opinion, on the toy course. Two notebooks, the blank release and a damaged
file, since each runs real nbgrader and the standalone sandbox; the scoring itself is covered by
tests/grading/doors/nbgrader/test_nbgrader_door.py, and the command's own three lines forward to this one
function."""

import contextlib
import io
import json

import nbformat
import pytest

from assignments.runs.folder import Run
from assignments.workflow import autograde_class
from tests.fixtures import toy

# One worker runs this module (`--dist loadgroup`): its module fixture grades the class once, not per worker.
pytestmark = pytest.mark.xdist_group("autograde_command")


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    the_toy = toy.build(tmp_path_factory.mktemp("course"), pyproject=True)
    inbox, out = tmp_path_factory.mktemp("inbox"), tmp_path_factory.mktemp("out")
    (inbox / "blank.ipynb").write_text(nbformat.writes(the_toy.release), encoding="utf-8")
    (inbox / "damaged.ipynb").write_bytes(b'{"nbformat": 4, "cells": 5}')
    # capsys is function-scoped, so the module-scoped run captures its own output.
    printed, progress = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(progress):
        autograde_class(the_toy.assignment, inbox, Run.autograde(out), workers=1)
    return printed.getvalue(), progress.getvalue(), out


def test_every_student_gets_a_record_and_the_class_goes_on(ran):
    _, _, out = ran
    records = {p.stem: json.loads(p.read_text()) for p in (out / "results").glob("*.json")}
    assert sorted(records) == ["blank", "damaged"], f"records written: {sorted(records)}"
    damaged_codes = {f["code"] for f in records["damaged"]["findings"]}
    assert {"intake-malformed-notebook", "not-repaired", "nbgrader-autograde"} <= damaged_codes, damaged_codes
    assert all(not q["points"] for q in records["damaged"]["questions"]), "a damaged notebook earned points"


def test_each_notebook_is_repaired_before_nbgrader_and_the_report_kept(ran):
    printed, _, out = ran
    report = json.loads((out / "repair" / "repair.json").read_text())
    statuses = {s["student"]: s["status"] for s in report["students"]}
    assert statuses == {"blank": "unchanged", "damaged": "not repaired"}, statuses
    assert "repaired for nbgrader: 2 notebook(s)" in printed, printed[-1500:]
    blank = json.loads((out / "results" / "blank.json").read_text())
    assert blank["source_file"].endswith("submissions/blank/blank.ipynb"), (
        f"the record should name the file the student sent, not the repaired copy: {blank['source_file']}"
    )


def test_progress_bar_and_a_line_for_the_student_that_failed(ran):
    printed, progress, _ = ran
    assert "nbgrader autograde toy" in progress and "submission" in progress, "no progress bar on stderr"
    assert "damaged: nbgrader autograde failed on this notebook" in printed + progress


def test_the_standalone_second_opinion_agrees_on_these_notebooks(ran):
    printed, _, _ = ran
    assert "the standalone door agrees on every question" in printed, printed[-1500:]
