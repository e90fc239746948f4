"""The intake itself: read a download, decide which of a student's files is their submission, copy one
notebook per student under the destination, and record what was odd as findings."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from assignments.intake.archives import (
    MAX_DEPTH,
    MAX_ENTRIES,
    MAX_ENTRY_BYTES,
    MAX_NAME_CHARS,
    MAX_PATH_CHARS,
    MAX_STUDENT_BYTES,
    MAX_STUDENT_ENTRIES,
    MAX_TOTAL_BYTES,
    Allowance,
    EntryError,
    OverAllowance,
    file_reader,
    scan_folder,
    scan_zip,
)
from assignments.intake.assignment_check import (
    assignment_fingerprints,
    known_assignments,
    read_notebook,
    which_assignment,
)
from assignments.intake.layouts import identify
from assignments.intake.names import assign_keys, ignored_entry, name_stem, safe_filename
from assignments.intake.records import Candidate, IntakeError
from assignments.runs.manifest import IntakeFinding, IntakeResult, Submission


def collect(
    source: Path,
    assignment: str,
    dest: Path,
    *,
    fingerprints: dict[str, set[str]] | None = None,
    max_entries: int = MAX_ENTRIES,
    max_entry_bytes: int = MAX_ENTRY_BYTES,
    max_total_bytes: int = MAX_TOTAL_BYTES,
    layout: str = "auto",
    max_student_entries: int = MAX_STUDENT_ENTRIES,
    max_student_bytes: int = MAX_STUDENT_BYTES,
    max_depth: int = MAX_DEPTH,
) -> IntakeResult:
    """Read ``source`` (a .ipynb, a folder or a zip) and copy one notebook per student under ``dest``.

    ``fingerprints`` (assignment -> grade_ids) lets intake recognise another assignment's notebook by its
    content; by default it is read from ``source/`` of this repository when that exists. ``layout`` is how
    the instructor says the download is read (``names.LAYOUTS``; "auto" by default). ``max_entries`` and
    ``max_total_bytes`` are the whole input's backstops; ``max_student_*`` and ``max_depth`` bound each
    student, whose files past them are that student's finding ("over-limit") while the class goes on.
    """
    source, dest = Path(source), Path(dest)
    if fingerprints is None:
        fingerprints = assignment_fingerprints()
    findings: list[IntakeFinding] = []
    archive = None
    if source.is_dir():
        entries = scan_folder(source, findings, max_entries, max_entry_bytes, skip=dest)
    elif source.is_file() and zipfile.is_zipfile(source) and source.suffix.lower() != ".ipynb":
        archive, entries = scan_zip(source, findings, max_entries, max_entry_bytes, max_total_bytes)
    elif source.is_file() and source.suffix.lower() == ".zip":
        raise IntakeError(f"{source} is not a readable zip file")
    elif source.is_file():
        entries = [(source.name, source.stat().st_mtime, file_reader(source, max_entry_bytes))]
    else:
        raise IntakeError(f"{source} does not exist")
    try:
        limits = _Limits(max_student_entries, max_student_bytes, max_depth)
        return _collect(entries, str(source), assignment, dest, fingerprints, findings, layout, limits)
    finally:
        if archive is not None:
            archive.close()


@dataclass(frozen=True)
class _Limits:
    """One student's allowance (``archives``)."""

    entries: int
    bytes: int
    depth: int


def _collect(entries, source: str, assignment: str, dest: Path, fingerprints, findings, chosen, limits) -> IntakeResult:
    known = known_assignments(fingerprints)
    layout, candidates = identify([e for e in entries if not ignored_entry(e[0])], assignment, findings, chosen)
    keys = assign_keys(candidates, findings)
    candidates = _within_allowance(candidates, limits, findings)
    by_student: dict[str, list[Candidate]] = {}
    others: dict[str, list[Candidate]] = {}  # non-notebook files (and empty submissions), per student
    for candidate in candidates:
        notebook = candidate.read is not None and PurePosixPath(candidate.entry).suffix.lower() == ".ipynb"
        (by_student if notebook else others).setdefault(candidate.student, []).append(candidate)

    result = IntakeResult(assignment=assignment, source=source, findings=findings, layout=layout)
    for student, files in sorted(others.items()):
        for c in files:
            if c.read is None:
                continue
            findings.append(
                IntakeFinding(
                    "not-a-notebook",
                    f"{c.original_name} is not a Jupyter notebook (.ipynb) and was not graded",
                    student,
                    c.entry,
                )
            )

    for student in sorted(set(by_student) | set(others)):
        files = by_student.get(student, [])
        for c in files + others.get(student, []):
            if c.note:
                findings.append(
                    IntakeFinding(
                        "unsafe-name",
                        f"the file name {c.original_name!r} {c.note}; it was kept as this student's, under a safe name",
                        student,
                        c.entry,
                    )
                )
        readable = []
        allowance = Allowance(limits.bytes)
        for c in files:
            try:
                _inspect(c, allowance)
            except OverAllowance as error:
                findings.append(
                    IntakeFinding("over-limit", f"{c.entry} was not read: it {error}", student, c.entry, "error")
                )
                continue
            except EntryError as error:
                findings.append(IntakeFinding("unreadable-entry", f"{c.entry} {error}", student, c.entry, "error"))
                continue
            if c.problem:
                # Kept (a damaged notebook is still this student's submission, graded as sent), but
                # said here, so one broken file is that student's finding and never the class's end.
                findings.append(
                    IntakeFinding(
                        "malformed-notebook",
                        f"{c.original_name} is not a readable notebook: {c.problem}",
                        student,
                        c.entry,
                        "error",
                    )
                )
            c.wrong_assignment = None if c.problem else which_assignment(c, assignment, fingerprints, known)
            readable.append(c)
        if not readable:
            first = (files or others[student])[0]
            sent = ", ".join(sorted(c.original_name for c in files + others.get(student, []) if c.read is not None))
            findings.append(
                IntakeFinding(
                    "missing-notebook",
                    f"no readable notebook for {assignment}; received: {sent or 'no files'}",
                    student,
                    "",
                    "error",
                )
            )
            result.missing.append(_record(first, None, keys))
            continue
        readable.sort(key=lambda c: _preference(c, assignment), reverse=True)
        keep, rest = readable[0], readable[1:]
        for c in rest:
            findings.append(
                IntakeFinding(
                    "duplicate",
                    f"{c.original_name} ignored: kept {keep.original_name} ({_why(keep, c, assignment)})",
                    student,
                    c.entry,
                )
            )
        if keep.wrong_assignment:
            findings.append(
                IntakeFinding(
                    "wrong-assignment",
                    f"{keep.original_name} looks like the "
                    f"notebook of {keep.wrong_assignment}, not {assignment}; it is "
                    "graded as sent",
                    student,
                    keep.entry,
                    "error",
                )
            )
        if keep.late:
            findings.append(
                IntakeFinding("late", f"{keep.original_name} was submitted late", student, keep.entry, "info")
            )
        if keep.group:
            names = ", ".join(name for _, name in keep.group)
            findings.append(
                IntakeFinding(
                    "group-submission",
                    f"submitted as a group with {names}; each member is graded on this notebook",
                    student,
                    keep.entry,
                    "info",
                )
            )
        target = dest / student / _target_name(keep.original_name, assignment)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".part")
        tmp.write_bytes(keep.read())
        tmp.replace(target)
        for c in files:
            c.read.release()
        result.submissions.append(_record(keep, str(target), keys))
    return result


def _inspect(c: Candidate, allowance: Allowance | None = None) -> None:
    """Read the candidate once, within its student's ``allowance``: its grade_ids, or why it is not a
    readable notebook."""
    if c.grade_ids is None and c.problem is None:
        c.grade_ids, c.problem = read_notebook(c.read(allowance))


def _too_deep_or_long(entry: str, depth: int) -> str | None:
    parts = entry.split("/")
    if len(parts) > depth + 1:
        return f"nested {len(parts) - 1} folders deep, past the {depth} intake reads"
    if len(entry) > MAX_PATH_CHARS or any(len(part) > MAX_NAME_CHARS for part in parts):
        return f"named longer than {MAX_NAME_CHARS} characters a part or {MAX_PATH_CHARS} in all"
    return None


def _within_allowance(candidates: list[Candidate], limits: _Limits, findings: list) -> list[Candidate]:
    """The candidates each student's allowance of files, depth and name length lets through; one finding per
    student for what it does not (a student who sent more files than the allowance has none of them read,
    since which of them is the submission cannot be told cheaply). The rest of the class is untouched."""
    sent: dict[str, list[Candidate]] = {}
    for c in candidates:
        if c.read is not None:
            sent.setdefault(c.student, []).append(c)
    refused: set[int] = set()
    for student, files in sorted(sent.items()):
        if len(files) > limits.entries:
            findings.append(
                IntakeFinding(
                    "over-limit",
                    f"sent {len(files)} files, more than the {limits.entries} one student may send; none was read "
                    "(give this student's notebook to intake on its own)",
                    student,
                    "",
                    "error",
                )
            )
            refused.update(id(c) for c in files)
            continue
        odd = [(c, why) for c in files if (why := _too_deep_or_long(c.entry, limits.depth))]
        if odd:
            first, why = odd[0]
            findings.append(
                IntakeFinding(
                    "over-limit",
                    f"{len(odd)} file(s) not read, each nested or named past intake's limits (the first is {why})",
                    student,
                    first.entry[:MAX_NAME_CHARS],
                    "error",
                )
            )
            refused.update(id(c) for c, _ in odd)
    kept = [c for c in candidates if id(c) not in refused]
    # A student none of whose files is left still has a record: a slot without a file says "no notebook".
    for student in sorted({c.student for c in candidates} - {c.student for c in kept}):
        first = next(c for c in candidates if c.student == student)
        kept.append(replace(first, entry="", original_name="", read=None, note=None))
    return kept


def _record(c: Candidate, path: str | None, keys: dict[tuple, str]) -> Submission:
    return Submission(
        c.student,
        path,
        c.original_name,
        c.late,
        c.name,
        c.lms,
        c.user_id,
        c.submission_id,
        c.entry,
        c.sid,
        c.email,
        c.submitted_at,
        sorted(keys[identity] for identity, _ in c.group if identity in keys),
    )


def _target_name(original_name: str, assignment: str) -> str:
    name = safe_filename(original_name)
    return name if name.lower().endswith(".ipynb") else f"{assignment}.ipynb"


def _preference(c: Candidate, assignment: str):
    """Sort key: the right assignment first, then the newest (highest submission id, then time)."""
    return (
        c.wrong_assignment is None,
        name_stem(c.original_name) == assignment.lower(),
        c.submission_id or -1,
        c.mtime,
        c.entry,
    )


def _why(keep: Candidate, other: Candidate, assignment: str) -> str:
    if (keep.wrong_assignment is None) != (other.wrong_assignment is None):
        return "it is this assignment's notebook"
    if (name_stem(keep.original_name) == assignment.lower()) != (name_stem(other.original_name) == assignment.lower()):
        return f"it is named {assignment}.ipynb"
    if keep.submission_id is not None and other.submission_id is not None:
        return "higher submission id, newer"
    return "newer"
