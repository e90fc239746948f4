"""Results records on disk: ``<folder>/<student>.json``, one per student (a run's folder is its
``Run.results``, ``folder.py``).

Every exporter starts from ``load_results``; graders end with ``save_result``.
"""

from __future__ import annotations

import json
from pathlib import Path

from assignments.results.model import SubmissionResult


def _check_key(student: str) -> str:
    if not student or "/" in student or "\\" in student or student in (".", "..") or "\0" in student:
        raise ValueError(f"student key {student!r} cannot be used as a file name")
    return student


def result_path(folder: Path, student: str) -> Path:
    return Path(folder) / f"{_check_key(student)}.json"


def save_result(result: SubmissionResult, folder: Path) -> Path:
    """Write one record atomically (a reader never sees half a file); returns its path."""
    path = result_path(folder, result.student)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(result.to_json(), encoding="utf-8")
    tmp.replace(path)
    return path


def load_result(path: Path) -> SubmissionResult:
    with open(path, encoding="utf-8") as handle:
        return SubmissionResult.from_dict(json.load(handle))


def load_results(folder: Path, assignment: str | None = None) -> list[SubmissionResult]:
    """Every ``*.json`` record in ``folder``, sorted by student (only ``assignment``'s, when given)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"no results folder at {folder}; grade the assignment first")
    records = [load_result(path) for path in sorted(folder.glob("*.json"))]
    if assignment is not None:
        records = [r for r in records if r.assignment == assignment]
    return sorted(records, key=lambda r: r.student)


def load_roster(path: Path | None) -> dict[str, dict]:
    """student key -> LMS details, from an intake manifest; empty when there is none."""
    if path is None or not Path(path).is_file():
        return {}
    from assignments.runs.manifest import IntakeResult

    return IntakeResult.load(Path(path)).roster()
