"""CSV cells that no spreadsheet executes: the one rule every CSV writer of this package applies.

Excel, LibreOffice and Google Sheets treat a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a
formula, and a leading tab or carriage return can hide such a character from a first look while some
readers still strip it and evaluate the rest. A student controls some of the text that reaches a CSV
(the display name an LMS puts in a file name, a Moodle folder name, and through them nbgrader's
gradebook names), so every such cell gets a leading apostrophe: spreadsheets show it as text, and the
apostrophe is the convention OWASP recommends for exactly this. A plain number (``-1.5``) stays a number:
grader-written points may be negative after a penalty and must remain numbers for the LMS.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def cell(value) -> str:
    """``value`` as a CSV cell a spreadsheet shows as text when it could start a formula."""
    text = "" if value is None else str(value)
    if text.startswith(TRIGGERS) and not _NUMBER.match(text):
        return "'" + text
    return text


def row(values) -> list[str]:
    return [cell(value) for value in values]


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
