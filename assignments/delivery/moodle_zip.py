"""Moodle's names for "Download submissions" and "Upload multiple feedback files in a zip", and each
participant's page in a feedback zip.

What Moodle does, in our words (read in Moodle: ``mod/assign/locallib.php``, ``download_submissions``, and
``mod/assign/feedback/file/importziplib.php``, ``is_valid_filename_for_import`` and ``import_zip_files``):

- Download: each participant's files are prefixed (or put in a folder) ``<full name>_<participant id>_``
  followed by the submission plugin, e.g. ``Jane Doe_4217_assignsubmission_file_/transformers.ipynb``.
  Any ``_`` in the full name is made a space first, so the participant id is always the second field.
  (Moodle 4.1 and later name the folder without the last ``_``; the import takes both.)
- Feedback import (the assignment's "View all submissions", grading action "Upload multiple feedback files
  in a zip"; the assignment needs "Feedback files" on): Moodle walks each file's path, splits a part at its
  first four ``_`` and takes the first part whose second field is the participant id of someone in the
  assignment and whose third and fourth fields name a plugin of it; what follows becomes the file's name in
  that participant's feedback files. Names starting with ``.`` or ``~`` are skipped, and a file identical to
  one the participant submitted under the same name is not imported.

So a participant's page is ``<full name>_<participant id>_assignsubmission_file_/<assignment>_feedback.html``:
the folder Moodle's download gave them, a file name no submission has. Every part is rebuilt from the intake
manifest's fields and read back with Moodle's own rule before it is written.
"""

from __future__ import annotations

import re

from assignments.intake import Submission

_DIGITS = re.compile(r"[0-9]+")
# Nothing that is a separator to Moodle (_ and /), a folder to Windows, or does not print.
_NOT_NAME = re.compile(r'[\x00-\x1f\x7f_/\\:*?"<>|\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]+')
NAME_CHARS = 80
PLUGIN = ("assignsubmission", "file")


def moodle_participant(path: str) -> str | None:
    """The participant id Moodle's feedback import reads from a path in the zip (its plugin check aside)."""
    for part in path.split("/"):
        fields = part.split("_", 4)
        if len(fields) >= 4 and _DIGITS.fullmatch(fields[1]):
            return fields[1]
    return None


def full_name(name: str) -> str:
    """The full-name field as Moodle's download writes it: no ``_`` (a space instead), nothing else that
    separates or does not print; "Participant" where that leaves nothing (Moodle's word for blind marking)."""
    kept = " ".join(_NOT_NAME.sub(" ", name or "").split())[:NAME_CHARS].strip(" .~")
    return kept or "Participant"


def feedback_problem(submission: Submission) -> str | None:
    """Why this participant's page cannot go into a feedback zip (None: it can)."""
    if submission.lms != "moodle":
        return "not from a Moodle download, so no participant id says whose it is"
    if not (submission.user_id and _DIGITS.fullmatch(str(submission.user_id))):
        return "the download gave no Moodle participant id"
    return None


def feedback_path(submission: Submission, assignment: str) -> str:
    """The page's path in the feedback zip; ValueError when Moodle would not read it as this participant's."""
    problem = feedback_problem(submission)
    if problem:
        raise ValueError(problem)
    folder = f"{full_name(submission.name)}_{submission.user_id}_{'_'.join(PLUGIN)}_"
    path = f"{folder}/{assignment}_feedback.html"
    if moodle_participant(path) != str(submission.user_id):
        raise ValueError(f"Moodle would read {ascii(path)} as another participant's")
    return path
