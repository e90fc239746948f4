"""Canvas's file names for "Download Submissions" and "Re-Upload Submissions", and each student's page in a
re-upload zip.

What Canvas does, in our words (read in canvas-lms: ``lib/content_zipper.rb``, ``get_filename`` and
``add_upload_submission``; ``app/models/assignment.rb``, ``generate_comments_from_files`` and
``infer_comment_context_from_filename``; and the "Re-Upload Submissions" link on an assignment's page
beside "Download Submissions"):

- Download: every uploaded file is named ``<name>[_LATE]_<user id>_<attachment id>_<file name>``. The name
  is the student's sortable name in lower case with every character that is not a letter or digit dropped;
  ``LATE`` appears when Canvas counts the submission late; the file name is the student's own, with
  ``/ \\ : * ? " < > |`` and NUL made ``_``. (Anonymous grading writes ``anon_<id>`` instead of the name
  and user id: those downloads carry no user id and cannot be re-uploaded to a student here.)
- Re-upload: Canvas reads only each file's base name. It splits it at ``_`` and takes the first two
  fields made of ASCII digits alone as the user id and the attachment id; the file becomes a comment
  ("See attached file") on that user's submission when the attachment is one of that submission's own
  files, and is ignored otherwise. The name part and the rest of the name are free; the comment's file
  keeps its content type from its extension.

So a student's page is named like their download, the extension ``.html`` in place of ``.ipynb``:
``doejane_LATE_111_900_transformers.ipynb`` -> ``doejane_LATE_111_900_transformers.html``. Every part is
rebuilt from the intake manifest's fields (never copied from the download's entry) and the result is read
back with Canvas's own rule: a name Canvas would read as anyone else's is never written.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from assignments.intake import Submission

_DIGITS = re.compile(r"[0-9]+")  # Canvas's ids: ASCII digits (Ruby's \d)
# What Canvas's download leaves of a sortable name: letters and digits of any script, no underscore.
_NOT_NAME = re.compile(r"[\W_]+")
# What Canvas's download makes "_" in a file name, and what nothing may carry (control, format, line breaks).
_NOT_FILE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]+')
NAME_CHARS = 60
FILE_CHARS = 100
EXTENSION = ".html"


def canvas_ids(file_name: str) -> tuple[str, str] | None:
    """(user id, attachment id) as Canvas's "Re-Upload Submissions" reads them from a file's base name."""
    fields = [field for field in PurePosixPath(file_name).name.split("_") if _DIGITS.fullmatch(field)]
    return (fields[0], fields[1]) if len(fields) >= 2 else None


def name_part(name: str) -> str:
    """The name field as Canvas writes it (letters and digits only); "student" where that leaves nothing or
    only ASCII digits, which Canvas would read as an id."""
    kept = _NOT_NAME.sub("", name or "")[:NAME_CHARS]
    return kept if kept and not _DIGITS.fullmatch(kept) else "student"


def file_part(original_name: str, fallback: str) -> str:
    """The student's own file name without its extension, as Canvas's download writes it, bounded."""
    stem = PurePosixPath((original_name or "").replace("\\", "/")).name
    stem = stem[: -len(PurePosixPath(stem).suffix)] if PurePosixPath(stem).suffix else stem
    stem = _NOT_FILE.sub("_", stem).strip(" .~")[:FILE_CHARS].strip(" .")
    return stem or fallback


def user_problem(submission: Submission) -> str | None:
    """Why no Canvas user id says whose this student's page is (None: one does)."""
    if submission.lms != "canvas":
        return "not from a Canvas download, so no Canvas user id says whose it is"
    if not (submission.user_id and _DIGITS.fullmatch(str(submission.user_id))):
        return "the download gave no Canvas user id"
    return None


def reupload_problem(submission: Submission) -> str | None:
    """Why this student's page cannot go into a re-upload zip (None: it can)."""
    problem = user_problem(submission)
    if problem:
        return problem
    if submission.submission_id is None or not _DIGITS.fullmatch(str(submission.submission_id)):
        return "the download gave no attachment id (a text entry or a link); post it by hand or with --api"
    return None


def reupload_name(submission: Submission, assignment: str) -> str:
    """The page's name in the re-upload zip; ValueError when Canvas would not read it as this student's."""
    problem = reupload_problem(submission)
    if problem:
        raise ValueError(problem)
    late = "_LATE" if submission.late else ""
    ids = f"{submission.user_id}_{submission.submission_id}"
    name = f"{name_part(submission.name)}{late}_{ids}_{file_part(submission.original_name, assignment)}{EXTENSION}"
    if canvas_ids(name) != (str(submission.user_id), str(submission.submission_id)):
        raise ValueError(f"Canvas would read {ascii(name)} as another student's")
    return name
