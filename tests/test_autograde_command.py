"""`course autograde`: intake, repair, real nbgrader per student with progress, a standalone second opinion.

Kept small (two notebooks: a blank release and a damaged file) because each one runs real nbgrader and
the standalone sandbox; the scoring itself is covered by tests/grading/doors/nbgrader/test_nbgrader_door.py.
"""

import contextlib
import io
import json

import pytest

from assignments import cli
from assignments.course import default
from tests.helpers import QUICKEST as ASSIGNMENT

# One worker runs this module (`--dist loadgroup`): its module fixture grades the class once, not per worker.
pytestmark = [pytest.mark.course, pytest.mark.xdist_group("autograde_command")]


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    inbox, out = tmp_path_factory.mktemp("inbox"), tmp_path_factory.mktemp("out")
    release = default().assignment(ASSIGNMENT).source_path
    (inbox / "blank.ipynb").write_bytes((default().release_dir / ASSIGNMENT / release.name).read_bytes())
    (inbox / "damaged.ipynb").write_bytes(b'{"nbformat": 4, "cells": 5}')
    # capsys is function-scoped, so the module-scoped run captures its own output.
    printed, progress = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(progress):
        status = cli.main(["autograde", ASSIGNMENT, str(inbox), "--out", str(out), "--workers", "1"])
    return status, printed.getvalue(), progress.getvalue(), out


def test_every_student_gets_a_record_and_the_class_goes_on(ran):
    status, printed, _, out = ran
    assert status == 0
    records = {p.stem: json.loads(p.read_text()) for p in (out / "results").glob("*.json")}
    assert sorted(records) == ["blank", "damaged"], f"records written: {sorted(records)}"
    damaged_codes = {f["code"] for f in records["damaged"]["findings"]}
    assert {"intake-malformed-notebook", "not-repaired", "nbgrader-autograde"} <= damaged_codes, damaged_codes
    assert all(not q["points"] for q in records["damaged"]["questions"]), "a damaged notebook earned points"


def test_each_notebook_is_repaired_before_nbgrader_and_the_report_kept(ran):
    _, printed, _, out = ran
    report = json.loads((out / "repair" / "repair.json").read_text())
    statuses = {s["student"]: s["status"] for s in report["students"]}
    assert statuses == {"blank": "unchanged", "damaged": "not repaired"}, statuses
    assert "repaired for nbgrader: 2 notebook(s)" in printed, printed[-1500:]
    blank = json.loads((out / "results" / "blank.json").read_text())
    assert blank["source_file"].endswith("submissions/blank/blank.ipynb"), (
        f"the record should name the file the student sent, not the repaired copy: {blank['source_file']}"
    )


def test_progress_bar_and_a_line_for_the_student_that_failed(ran):
    _, printed, progress, _ = ran
    assert "nbgrader autograde transfer_lm" in progress and "submission" in progress, "no progress bar on stderr"
    assert "damaged: nbgrader autograde failed on this notebook" in printed + progress


def test_the_standalone_second_opinion_agrees_on_these_notebooks(ran):
    _, printed, _, _ = ran
    assert "the standalone door agrees on every question" in printed, printed[-1500:]
