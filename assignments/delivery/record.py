"""The release record, ``<run>/feedback/released.json``: every feedback release of the run, appended.

One entry per release::

    {"released_at": "2026-11-20T14:03:11Z", "lms": "canvas", "via": "canvas-reupload-zip",
     "assignment": "transformers", "run": "grades/2026-autumn/transformers",
     "results_digest": "<sha256 of the run's records, file by file>",
     "archive": "canvas/transformers_feedback_canvas.zip", "archive_sha256": "...",
     "delivered": [{"student": "111", "lms_key": {"canvas_user_id": "111", "canvas_attachment_id": "900"},
                    "file": "doejane_111_900_transformers.html", "sha256": "...", "bytes": 5123,
                    "record_sha256": "<sha256 of results/111.json>", "score": "7.5 / 10",
                    "written_pending": false}],
     "held": [{"student": "222", "why": "2 written answer(s) not graded yet"}]}

"released" means handed to the LMS's way in: the zip written for upload (``via`` says which), or each
comment the API confirmed posting. The file is rewritten whole, atomically, on each append.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from assignments.runs.folder import Run

FORMAT = 1


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def results_digest(run: Run) -> tuple[str, dict[str, str]]:
    """(one digest of the run's results records, each record file's own sha256 by student key)."""
    each = {path.stem: sha256(path.read_bytes()) for path in sorted(run.results.glob("*.json")) if path.is_file()}
    whole = sha256("\n".join(f"{student} {digest}" for student, digest in sorted(each.items())).encode("utf-8"))
    return whole, each


def load(path: Path) -> list[dict]:
    """The releases recorded at ``path`` (none when there is no record yet); ValueError for a damaged one."""
    path = Path(path)
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("releases"), list):
        raise ValueError(f"{path} is not a release record")
    return data["releases"]


def append(path: Path, entry: dict) -> Path:
    """Add ``entry`` to the record at ``path``."""
    path = Path(path)
    releases = load(path) + [entry]
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps({"format": FORMAT, "releases": releases}, indent=2, sort_keys=True) + "\n")
    partial.replace(path)
    return path


def last_delivered(releases: list[dict], lms: str) -> dict[str, str]:
    """student -> the sha256 of the page last released to them through ``lms``."""
    last: dict[str, str] = {}
    for entry in releases:
        if entry.get("lms") == lms:
            last.update({item["student"]: item["sha256"] for item in entry.get("delivered", [])})
    return last
