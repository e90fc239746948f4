"""CSV files whose cells no spreadsheet executes: every CSV writer of this package writes through here.

A student controls some of the text that reaches a CSV (the display name an LMS puts in a file name, a
Moodle folder name, and through them nbgrader's gradebook names), so every cell goes through
``escaping.csv_cell``, the rule for this format (a cell that could start a formula gets a leading
apostrophe, which spreadsheets show as text).
"""

from __future__ import annotations

import csv
from pathlib import Path

from ..escaping import csv_cell


def row(values) -> list[str]:
    return [csv_cell(value) for value in values]


def write_rows(path: Path, rows) -> Path:
    """Write ``rows`` as UTF-8 CSV with every cell neutralised."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(row(values) for values in rows)
    return path


def neutralise_file(path: Path) -> Path:
    """Rewrite a CSV another program wrote (``nbgrader export``) with every cell neutralised."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return write_rows(path, rows)
