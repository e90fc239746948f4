"""CSV files whose cells no spreadsheet executes: every CSV writer of this package writes through here.

A student controls some of the text that reaches a CSV (the display name an LMS puts in a file name, a
Moodle folder name, and through them nbgrader's gradebook names), so every cell goes through
``escaping.csv_cell``, the rule for this format (a formula character at the start of a cell, or after
anything a reader may split the cell at, gets an apostrophe, which spreadsheets show as text).

Every cell is quoted too (``csv.QUOTE_ALL``, RFC 4180, which Canvas' gradebook import and nbgrader's
readers accept; quoted numbers stay numbers in a spreadsheet): a reader that guesses ``;`` or tab
instead of ``,`` then keeps a cell's ``;`` or tab inside that cell.
"""

from __future__ import annotations

import csv
from pathlib import Path

from assignments.escaping import csv_cell

QUOTING = csv.QUOTE_ALL


def row(values) -> list[str]:
    return [csv_cell(value) for value in values]


def write_rows(path: Path, rows) -> Path:
    """Write ``rows`` as UTF-8 CSV with every cell neutralised and quoted."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, quoting=QUOTING).writerows(row(values) for values in rows)
    return path


def write_records(path: Path, header: list[str], records) -> Path:
    """Write dicts (``csv.DictWriter``'s rows) under ``header``, as ``write_rows`` does."""
    return write_rows(path, [header] + [[record.get(name, "") for name in header] for record in records])
