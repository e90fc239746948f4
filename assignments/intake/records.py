"""What intake works with besides the manifest it writes (``runs/manifest.py``): the error for an input that
cannot be read at all, and the candidate record every step of intake fills in."""

from __future__ import annotations

from dataclasses import dataclass


class IntakeError(Exception):
    """The input as a whole cannot be read (not a notebook, folder or zip; a zip bomb; a corrupt zip)."""


@dataclass
class Candidate:
    entry: str  # relative path in the archive or folder ("" for a submission that arrived without files)
    original_name: str
    student: str  # the key; assign_keys settles it
    name: str
    lms: str
    user_id: str | None
    submission_id: int | None
    late: bool
    mtime: float
    read: object  # callable returning bytes (bounded); None: nothing arrived
    identity: tuple[str, str] = ("", "")  # (layout, the name or id as the LMS wrote it): who this is
    note: str | None = None  # what is odd about the student's own file name (flagged, kept)
    sid: str | None = None
    email: str | None = None
    submitted_at: str | None = None
    group: tuple = ()  # the other members' identities of a group submission, and their display names
    wrong_assignment: str | None = None
    grade_ids: set[str] | None = None  # None until read; read by _inspect
    problem: str | None = None  # why its bytes are not a readable notebook
