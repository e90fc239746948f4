"""Where nbgrader looks for a submission in its course folder: the one path both the door (which stages
submissions there) and ``repair`` (which writes repaired copies there) need, kept apart from both so
neither imports the other."""

from __future__ import annotations

from pathlib import Path

from assignments.course import Assignment


def submitted_path(root: Path, assignment: Assignment, student: str) -> Path:
    """Where ``nbgrader autograde`` looks for a student's notebook in course folder ``root``:
    submitted/<student>/<assignment>/<the release's notebook name>."""
    return Path(root) / "submitted" / student / assignment.name / assignment.source_path.name
