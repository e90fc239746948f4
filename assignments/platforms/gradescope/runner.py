"""What ``run_autograder`` runs inside Gradescope's container: find the uploaded notebook, grade it with the
standalone door, write ``/autograder/results/results.json``. Whatever the student got wrong (no notebook,
two, a foreign or undecodable file, a tree of folders 1,200 deep), a valid results.json with score 0 and a
clear message is written. Whatever the grader got wrong (an exception, its hidden suite missing or broken,
a sandbox the machine cannot give) is the grader's failure, never the student's 0: no results.json, the
reason in the staff-only log, and a non-zero exit, so that Gradescope shows "The autograder failed to
execute correctly" (see ``GRADER_FAILURE_SPEC``).

    python -m assignments.platforms.gradescope.runner --assignment transformers \
        [--submission-dir /autograder/submission] [--out /autograder/results/results.json]
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import tempfile
import time
import traceback
from pathlib import Path

from assignments import trees
from assignments.course import Assignment, resolve
from assignments.escaping import one_line, printable
from assignments.exports.gradescope import results_json, write_results_json
from assignments.notebooks import MAX_NOTEBOOK_BYTES
from assignments.points import points_text
from assignments.results.findings import INTERNAL_CODES
from assignments.results.model import Finding, SubmissionResult, rejected
from assignments.settings import Settings

# Folders an upload may carry that hold no submission: editor caches and macOS zip metadata.
IGNORED_PARTS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", "__MACOSX"}
DOWNLOAD_HINT = "download it with File > Download > Download .ipynb and upload that file"
# How far and how much of an upload is looked at: a notebook sits at depth 1 (2 when zipped in a folder).
UPLOAD_DEPTH = 16
UPLOAD_ENTRIES = 10_000

# Gradescope's specification (gradescope/autograder_samples, docs/troubleshooting.md at
# 0a163bee3d382989e500e628ec9c8686a25027fb, "The autograder failed to execute correctly"): that message is
# what staff and the student see "when the autograder does not produce a valid JSON file in
# /autograder/results/results.json"; docs/specs.md says results.json "must be produced as a result of
# executing run_autograder" and that stdout is shown to the instructor only. So a grader failure writes no
# results.json (and removes a stale one), prints why to stdout, and exits non-zero; a regrade from
# Gradescope's page is then all it takes once the grader is fixed.
GRADER_FAILURE_SPEC = "gradescope/autograder_samples docs/troubleshooting.md"
EXIT_GRADER_FAILED = 3
# Findings that mean the grader, not the student, failed: the catalogue's internal errors, and an
# assignment the grader's own files do not hold.
GRADER_FAILURE_CODES = INTERNAL_CODES | {"unknown-assignment"}


class UploadRefused(Exception):
    """The upload cannot be graded; the message is for the student."""


def _upload_walk(submission_dir: Path) -> trees.Walk:
    """Every file, folder and link under ``submission_dir`` with its lstat, never following a link (a link
    may point anywhere on the grading machine, the instructor's files included); iterative and bounded by
    ``UPLOAD_DEPTH`` and ``UPLOAD_ENTRIES`` (a 1,200-deep tree is the student's problem, not a crash)."""
    return trees.walk(
        [submission_dir],
        max_depth=UPLOAD_DEPTH,
        enter=lambda path, _: os.path.basename(path) not in IGNORED_PARTS,
        max_entries=UPLOAD_ENTRIES,
    )


def _not_a_file(info: os.stat_result) -> str | None:
    """Why an entry named like a notebook is no notebook file; None for a regular file."""
    if stat.S_ISLNK(info.st_mode):
        return "a link, not a file"
    if stat.S_ISDIR(info.st_mode):
        return "a folder, not a notebook file"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    return None


def find_notebook(submission_dir: Path, assignment: str) -> tuple[Path | None, list[str], list[str]]:
    """(the notebook to grade in a Gradescope submission folder, notes for the student, refusals).

    Only regular files count; an entry named ``*.ipynb`` that is a link, a folder or anything else is
    refused with a reason (the third list), and so is any other link."""
    notes, refused, found, others = [], [], [], []
    upload = _upload_walk(Path(submission_dir))
    for entry in upload:
        path, info = Path(entry.path), entry.info
        shown = one_line(path.relative_to(submission_dir).as_posix())
        why = _not_a_file(info)
        if path.suffix.lower() == ".ipynb" and why is not None:
            refused.append(f"{shown} is {why}")
        elif why is None and path.suffix.lower() == ".ipynb":
            found.append((path, info))
        elif why is None or stat.S_ISLNK(info.st_mode):
            others.append(shown)
    if others:
        notes.append(f"ignored files that are not notebooks: {', '.join(others[:10])}")
    if upload.too_deep:
        notes.append(f"folders nested more than {UPLOAD_DEPTH} levels deep were not looked in")
    if upload.cut:
        notes.append(f"the upload holds more than {UPLOAD_ENTRIES} files and folders; only the first were looked at")
    if not found:
        return None, notes, refused
    notes += [f"ignored: {why}" for why in refused]
    # LMS downloads rename files ("smithj_1234_5678_transformers-1.ipynb"): an exact name wins, then
    # one that contains the assignment's name, then the newest.
    named = [p for p in found if p[0].stem.lower() == assignment.lower()] or [
        p for p in found if assignment.lower() in p[0].stem.lower()
    ]
    chosen = (named or sorted(found, key=lambda p: (p[1].st_mtime, str(p[0]))))[-1][0]
    if len(found) > 1:
        notes.append(f"several notebooks were uploaded; graded {one_line(chosen.name)}")
    return chosen, notes, []


NOTEBOOK_LIMIT_NAME = "a notebook may be"  # how the upload limit is named to the student: the grader's own


def _megabytes(size: int) -> str:
    """``5.3 MB``: one decimal where it tells a file just over a limit from the limit."""
    value = size / 2**20
    return f"{value:.1f} MB" if value < 100 else f"{value:.0f} MB"


def read_upload(
    path: Path, submission_dir: Path, max_bytes: int = MAX_NOTEBOOK_BYTES, limit_name: str = NOTEBOOK_LIMIT_NAME
) -> bytes:
    """The bytes of the regular file ``path``, which must lie inside ``submission_dir`` once every link is
    resolved; opened without following a link (O_NOFOLLOW), so a link swapped in after the scan is refused
    too. UploadRefused otherwise, or when it is larger than ``max_bytes`` (the message names the limit as
    ``limit_name`` says: "more than the 5 MB PrairieLearn accepts for an upload")."""
    root = os.path.realpath(submission_dir)
    if os.path.commonpath([root, os.path.realpath(path)]) != root:
        raise UploadRefused(f"{path.name} lies outside the upload; {DOWNLOAD_HINT}")
    try:
        # O_NONBLOCK: a FIFO put in its place does not hang the runner; fstat refuses it below.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        raise UploadRefused(f"{path.name} could not be opened as a file; {DOWNLOAD_HINT}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UploadRefused(f"{path.name} is not a regular file; {DOWNLOAD_HINT}")
        if info.st_size > max_bytes:
            raise UploadRefused(
                f"{one_line(path.name)} is {_megabytes(info.st_size)}, more than the {max_bytes / 2**20:g} MB "
                f"{limit_name}; clear its outputs (Edit > Clear all outputs) and upload it again"
            )
        return handle.read(max_bytes + 1)[:max_bytes]


def submitter(metadata_path: Path) -> str:
    """The student key from Gradescope's submission_metadata.json (first user's email or id)."""
    try:
        data = json.loads(Path(metadata_path).read_text(encoding="utf-8"))
        user = (data.get("users") or [{}])[0]
        return str(user.get("email") or user.get("sid") or user.get("id") or "gradescope")
    except (OSError, ValueError, AttributeError, IndexError):
        return "gradescope"


# submission_metadata.json as Gradescope publishes it (gradescope/autograder_samples,
# docs/submission_metadata.md at a8edb7eabcb70cd50a9272b05c1c829837ae8706): "created_at" is the submission
# time, "assignment" holds the assignment's "due_date" (and "late_due_date", the last moment a late
# submission is accepted, which says nothing about a penalty), and "users" lists every member of a group
# submission, each with "email", "id" and "name". A member's own dates (an extension) come as that user's
# "assignment" object, with the same "due_date" key; the published example leaves it out, so each member
# falls back to the assignment's due date.


def submission_facts(metadata_path: Path) -> dict:
    """What submission_metadata.json says about the submission, in the roster's terms: the submitter's
    ``name`` and, where Gradescope gives the submission time and due dates, ``hours_late``. A group's
    lateness follows the course's rule (``exports/adjust.py``, ``group_lateness``): each member against
    their own due date, the group as late as its least late member; ``members_hours_late`` keeps each
    member's hours (member email or id -> hours) for staff."""
    try:
        data = json.loads(Path(metadata_path).read_text(encoding="utf-8"))
        users = [user for user in data.get("users") or [] if isinstance(user, dict)]
        facts = {"name": str((users or [{}])[0].get("name") or "")}
        if not data.get("created_at"):
            return facts
        submitted = _moment(data["created_at"])
        default_due = (data.get("assignment") or {}).get("due_date")
        members = {}
        for number, user in enumerate(users):
            due = (user.get("assignment") or {}).get("due_date") or default_due
            if due:
                who = str(user.get("email") or user.get("id") or f"member {number + 1}")
                members[who] = max(0.0, (submitted - _moment(due)).total_seconds() / 3600)
        if not users and default_due:
            members["submitter"] = max(0.0, (submitted - _moment(default_due)).total_seconds() / 3600)
        if members:
            from assignments.exports.adjust import group_lateness

            facts["hours_late"] = group_lateness(members)
            if len(members) > 1:
                facts["members_hours_late"] = members
        return facts
    except (OSError, ValueError, TypeError, AttributeError, IndexError):
        return {}


def _moment(text: str):
    from datetime import datetime

    return datetime.fromisoformat(str(text).replace("Z", "+00:00"))


def course_decisions(result, facts: dict, settings: Settings):
    """``result`` with the course's late policy and excused questions applied (exports/adjust.py), as
    every other export applies them; a configuration error leaves it as graded and is printed for staff."""
    from assignments.exports import adjust

    try:
        policy = settings.late_policy
        excused = settings.excused(result.assignment)
        canvas_deducts = settings.canvas.late_policy == "canvas"
        return adjust.apply([result], {result.student: facts}, policy, excused, canvas_deducts)[0]
    except ValueError as error:
        print(f"course configuration not applied: {error}")
        return result


def _unusable(name: str, data: bytes, assignment: Assignment) -> str | None:
    """Why the notebook ``name`` (its bytes) cannot be graded, checked before any kernel starts; None
    when it can."""
    try:
        cells = json.loads(data.decode("utf-8"))["cells"]
        ids = {((c.get("metadata") or {}).get("nbgrader") or {}).get("grade_id") for c in cells}
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        return f"{name} is not a readable Jupyter notebook (it is not valid notebook JSON); {DOWNLOAD_HINT}"
    try:
        expected = {q.grade_id for q in assignment.questions}
    except Exception:  # noqa: BLE001 - without the source we cannot tell; let the grader decide
        return None
    if expected and not (expected & ids):
        return (
            f"{name} does not hold any question of {assignment.name}; is it the notebook of another "
            f"assignment? Upload your completed {assignment.name}.ipynb"
        )
    return None


def _standalone_grader():
    # Imported late: the grader lives in its own module and only this command needs it.
    from assignments.grading.doors.standalone import grade_submission

    return grade_submission


def _grade_copy(grade, assignment: Assignment, name: str, data: bytes, student: str):
    """Grade the bytes that were read, from a private copy: the grader never opens the upload itself.
    Where the sandbox cannot run students' code on this machine, nothing is graded, and the record says
    it is the grader's problem (staff read why in Gradescope's stdout)."""
    from assignments.grading.sandbox.preflight import refusal

    why = refusal()
    if why:
        return rejected(student, assignment, "standalone", Finding("sandbox-refused", why, "error"), name)
    with tempfile.TemporaryDirectory(prefix="course-upload-") as folder:  # 0700, root's only
        copy = Path(folder) / name
        copy.write_bytes(data)
        try:
            return grade(assignment, copy, student)
        except Exception as error:  # noqa: BLE001 - recorded as the grader's failure (grader_failure)
            staff_traceback()  # goes to Gradescope's stdout, which only staff see
            return rejected(
                student,
                assignment,
                "standalone",
                Finding("grader-error", f"{type(error).__name__}: {error}", "error"),
                name,
            )


def grade_upload(
    assignment: Assignment,
    submission_dir: Path,
    student: str,
    grade=None,
    max_bytes: int = MAX_NOTEBOOK_BYTES,
    limit_name: str = NOTEBOOK_LIMIT_NAME,
):
    """The record of the notebook uploaded to ``submission_dir``: graded from a private copy when one
    usable notebook is there, else a ``rejected`` record whose finding tells the student what to upload.
    What an upload holds besides (other files, a second notebook) is an ``upload`` note. Any platform's
    runner starts here (Gradescope's below, PrairieLearn's in ``platforms.prairielearn.runner``, which passes its
    platform's smaller ``max_bytes``).

    ``grade(assignment, path, student) -> SubmissionResult`` defaults to the standalone grader."""
    submission_dir = Path(submission_dir)
    notebook, notes, refused = find_notebook(submission_dir, assignment.name)
    try:
        if notebook is None and refused:
            raise UploadRefused(f"{'; '.join(refused)}: only a notebook file is graded; {DOWNLOAD_HINT}")
        data = read_upload(notebook, submission_dir, max_bytes, limit_name) if notebook is not None else None
        problem = _unusable(notebook.name, data, assignment) if data is not None else None
    except UploadRefused as why:
        data, problem = None, str(why)
    if problem is not None:
        result = rejected(
            student,
            assignment,
            "standalone",
            Finding("bad-notebook", problem, "error"),
            notebook.name if notebook is not None else "",
        )
    elif notebook is None:
        result = rejected(
            student,
            assignment,
            "standalone",
            Finding(
                "missing-notebook",
                f"no .ipynb file was uploaded; upload your completed {assignment.name}.ipynb",
                "error",
            ),
        )
    else:
        result = _grade_copy(grade or _standalone_grader(), assignment, notebook.name, data, student)
    result.findings = [Finding("upload", note, "info") for note in notes] + list(result.findings)
    return result


def staff_traceback() -> None:
    """The current exception's traceback on stdout (staff only), escaped: it may quote a file name."""
    print(printable(traceback.format_exc()), end="")


def grader_failure(result: SubmissionResult) -> list[Finding]:
    """The findings of ``result`` that say the grader failed (not the student); empty when it did not."""
    return [f for f in result.findings if f.severity == "error" and f.code in GRADER_FAILURE_CODES]


def staff_lines(result: SubmissionResult) -> list[str]:
    """Every finding of ``result`` for the staff-only log, unabridged but escaped: no escape sequence,
    carriage return or bidirectional override from a file name reaches a terminal, and a message's own
    line breaks are indented so that it cannot forge a line of its own."""
    return [
        f"  [{one_line(f.severity)}] {one_line(f.code)}: " + printable(f.message).replace("\n", "\n      ")
        for f in result.findings
    ]


def run(
    assignment: Assignment, submission_dir: Path, out: Path, metadata: Path | None = None, grade=None
) -> dict | None:
    """Grade the notebook in ``submission_dir`` and write results.json to ``out``; returns it. Where the
    grader failed (``grader_failure``), writes none (removing a stale one), says why on stdout and returns
    None: ``main`` then exits non-zero (``GRADER_FAILURE_SPEC``).

    ``grade(assignment, path, student) -> SubmissionResult`` defaults to the standalone grader.
    """
    submission_dir, out = Path(submission_dir), Path(out)
    metadata = Path(metadata) if metadata else submission_dir.parent / "submission_metadata.json"
    student = submitter(metadata)
    start = time.perf_counter()
    result = grade_upload(assignment, submission_dir, student, grade)
    failed = grader_failure(result)
    if failed:
        out.unlink(missing_ok=True)
        print(
            f"GRADER FAILURE for {one_line(student)}: no results.json was written, so Gradescope shows "
            "'The autograder failed to execute correctly'; fix the grader and regrade this submission."
        )
        print("\n".join(staff_lines(result)))
        return None
    facts = submission_facts(metadata)
    settings = assignment.course.settings  # the course the bundle ships: its [tool.course], read once
    result = course_decisions(result, facts, settings)
    result.timings = {**(result.timings or {})}
    result.timings.setdefault("total_s", round(time.perf_counter() - start, 2))
    visibility = settings.gradescope_test_visibility
    write_results_json(result, out, visibility)
    # Gradescope's stdout is shown to staff only: the full findings go there, unabridged (and escaped).
    print(
        f"{one_line(student)}: {points_text(result.autograded_points)} / {points_text(result.autograded_max)} -> {out}"
    )
    for member, hours in facts.get("members_hours_late", {}).items():
        print(f"  group member {one_line(member)}: {hours:.1f} h late against their own due date")
    for line in staff_lines(result):
        print(line)
    return results_json(result, visibility)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m assignments.platforms.gradescope.runner",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--assignment", required=True)
    parser.add_argument("--submission-dir", type=Path, default=Path("/autograder/submission"))
    parser.add_argument("--metadata", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=Path("/autograder/results/results.json"))
    args = parser.parse_args(argv)
    try:
        written = run(resolve(args.assignment), args.submission_dir, args.out, args.metadata)
    except Exception:  # noqa: BLE001 - the grader's own failure: Gradescope must say so, not score a 0
        staff_traceback()
        args.out.unlink(missing_ok=True)
        print("GRADER FAILURE: no results.json was written; see the traceback above.")
        return EXIT_GRADER_FAILED
    return 0 if written is not None else EXIT_GRADER_FAILED


if __name__ == "__main__":
    os.environ.setdefault("TQDM_DISABLE", "1")
    sys.exit(main())
