"""Which layout a download is (Gradescope's export, an LMS's names, a folder per student, a wrapper folder
around a class) and so who sent each file in it."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from assignments.intake import gradescope_metadata as gradescope_export
from assignments.intake.archives import EntryError
from assignments.intake.names import (
    CANVAS,
    CANVAS_INLINE,
    LAYOUTS,
    MOODLE_FOLDER,
    MOODLE_MARK,
    name_problem,
    name_stem,
    own_problem,
    parse_name,
    safe_key,
)
from assignments.intake.records import Candidate, IntakeError
from assignments.runs.manifest import IntakeFinding

# A submission's folder in Gradescope's export (or the file of a single-file upload, named after it).
SUBMISSION = re.compile(r"^submission_[0-9]+(?:\.[A-Za-z0-9]+)?$")


def identify(entries, assignment: str, findings: list, layout: str = "auto") -> tuple[str, list[Candidate]]:
    """(the layout read, one candidate per file and student) for the input's entries.

    ``layout`` is the instructor's (``LAYOUTS``). A Gradescope export is read when the instructor says so,
    or under "auto" when the structure is one only Gradescope writes: its metadata at the top (or in the one
    folder around everything) and nothing beside it but ``submission_<id>`` folders or files. A file a
    student uploads, whatever its name, never turns a plain folder into an export."""
    if layout not in LAYOUTS:
        raise IntakeError(f"unknown layout {layout!r}; choose one of {', '.join(LAYOUTS)}")
    paths = [[p for p in relative.split("/") if p] for relative, _, _ in entries]
    root = _gradescope_root(paths)
    if layout == "gradescope":
        if root is None:
            raise IntakeError(
                f"read as a Gradescope export, but it has no {gradescope_export.METADATA_NAME} at its top "
                "(or in the one folder around everything)"
            )
        return "gradescope", _gradescope_candidates(entries, root, findings)
    if layout == "auto" and root is not None and _only_submissions(paths, root):
        return "gradescope", _gradescope_candidates(entries, root, findings)
    depth = _wrapper_depth(paths, assignment)
    candidates = []
    for (relative, mtime, read), parts in zip(entries, paths):
        if parts[depth:] == [gradescope_export.METADATA_NAME]:
            # Not Gradescope's (nothing else here is a Gradescope submission): not read, and nobody's file.
            findings.append(
                IntakeFinding(
                    "unattributed",
                    f"{relative!r} was not read as a Gradescope export's metadata (the folders beside it are not "
                    "Gradescope's submission_<id>; pass --layout gradescope if it is one) and names no student",
                    None,
                    relative,
                    "error",
                )
            )
            continue
        who = parse_name("/".join(parts[depth:]), layout)
        if who["problem"]:
            findings.append(
                IntakeFinding(
                    "unsafe-name",
                    f"{relative!r} was not read: the name that says whose it is {who['problem']}, so it could "
                    "be taken for another student's; give it to its student by hand",
                    None,
                    relative,
                    "error",
                )
            )
            continue
        candidates.append(
            Candidate(
                relative,
                who["original_name"],
                who["student"],
                who["name"],
                who["lms"],
                who["user_id"],
                who["submission_id"],
                who["late"],
                mtime,
                read,
                identity=(who["lms"], who["identity"]),
                note=who["note"],
            )
        )
    return ", ".join(sorted({c.lms for c in candidates})), candidates


def _gradescope_root(paths: list[list[str]]) -> list[str] | None:
    """The folder of a Gradescope export's metadata: the input's top, or the one folder everything is in.

    Never deeper: a metadata file inside a student's or a submission's folder is just one of their files."""
    if [gradescope_export.METADATA_NAME] in paths:
        return []
    tops = {parts[0] for parts in paths if parts}
    if len(tops) == 1 and all(len(parts) > 1 for parts in paths):
        top = tops.pop()
        if [top, gradescope_export.METADATA_NAME] in paths:
            return [top]
    return None


def _only_submissions(paths: list[list[str]], root: list[str]) -> bool:
    """Whether everything beside the metadata at ``root`` is a Gradescope submission (``submission_<id>``, a
    folder or a single uploaded file): the structure of Gradescope's export, which no one upload makes."""
    inside = {tuple(parts[len(root) : len(root) + 1]) for parts in paths if parts[: len(root)] == root}
    names = {part[0] for part in inside if part} - {gradescope_export.METADATA_NAME}
    return bool(names) and all(SUBMISSION.match(name) for name in names)


def _wrapper_depth(paths: list[list[str]], assignment: str) -> int:
    """How many single top folders around everything are looked through (a zipped download folder)."""
    depth = 0
    while _is_wrapper(paths, depth, assignment):
        depth += 1
    return depth


def _is_wrapper(paths: list[list[str]], depth: int, assignment: str) -> bool:
    """Whether the one folder at ``depth`` that holds everything is a wrapper rather than one student's.

    It is when what it holds is clearly a class: LMS-named files or folders, or several items none of
    which is a notebook named after the assignment (a student's folder usually holds that one), or a
    single folder that is a wrapper itself."""
    if not paths or any(len(parts) < depth + 2 for parts in paths):
        return False
    tops = {parts[depth] for parts in paths}
    if len(tops) != 1 or MOODLE_FOLDER.match(next(iter(tops))):
        return False
    inside = {parts[depth + 1] for parts in paths}
    if any(
        MOODLE_FOLDER.match(n) or MOODLE_MARK.search(n) or CANVAS.match(n) or CANVAS_INLINE.match(n) for n in inside
    ):
        return True
    if len(inside) == 1:
        return _is_wrapper(paths, depth + 1, assignment)
    return not any(
        len(parts) == depth + 2 and parts[-1].lower().endswith(".ipynb") and name_stem(parts[-1]) == assignment.lower()
        for parts in paths
    )


def _gradescope_candidates(entries, root: list[str], findings: list) -> list[Candidate]:
    """One candidate per file and submitter of a Gradescope export (a group's file is each member's)."""
    where = "/".join(root + [gradescope_export.METADATA_NAME])
    files = [([p for p in entry[0].split("/") if p], entry) for entry in entries]
    # A zip may hold one name twice; the first copy of the metadata is the one read, any other is a stray file.
    at = next(i for i, (parts, _) in enumerate(files) if parts == root + [gradescope_export.METADATA_NAME])
    try:
        metadata = gradescope_export.read_metadata(files.pop(at)[1][2]())
    except (EntryError, gradescope_export.ExportError) as error:
        raise IntakeError(f"the Gradescope export's {where} cannot be read: {error}") from None
    findings += [IntakeFinding("unattributed", problem, None, where, "error") for problem in metadata.problems]
    people = {folder: _submitters(sub, findings) for folder, sub in metadata.submissions.items()}
    candidates, arrived = [], set()
    for parts, (relative, mtime, read) in files:
        inner = parts[len(root) :]
        # A folder per submission; an export of uploads that were single files names them after the folder.
        folder = inner[0] if len(inner) > 1 else PurePosixPath(inner[0]).stem
        if folder not in metadata.submissions:
            findings.append(
                IntakeFinding(
                    "unattributed",
                    f"{relative!r} is in no submission that {gradescope_export.METADATA_NAME} lists; not graded",
                    None,
                    relative,
                    "error",
                )
            )
            continue
        arrived.add(folder)
        own = "/".join(inner[1:]) or inner[0]
        candidates += _members(metadata.submissions[folder], people[folder], relative, own, mtime, read)
    for folder in sorted(set(metadata.submissions) - arrived):
        # Listed but empty: each member is a student without a notebook, not a student nobody mentions.
        candidates += _members(metadata.submissions[folder], people[folder], "", "", 0.0, None)
    return candidates


def _submitters(sub: gradescope_export.ExportSubmission, findings: list) -> list:
    """The members of a submission whose id can name a student; the others are refused, each said."""
    usable = []
    for person in sub.submitters:
        problem = name_problem(person.identity)
        if problem:
            findings.append(
                IntakeFinding(
                    "unsafe-name",
                    f"{sub.folder!r}: the student id or email of {person.name!r} {problem}; that student's "
                    "copy was not filed",
                    None,
                    sub.folder,
                    "error",
                )
            )
        else:
            usable.append(person)
    return usable


def _members(sub, people, relative: str, own: str, mtime: float, read) -> list[Candidate]:
    when = sub.created_at
    return [
        Candidate(
            relative,
            PurePosixPath(own).name if own else "",
            safe_key(person.identity),
            person.name,
            "gradescope",
            None,
            sub.submission_id,
            False,  # the export says when, not whether that was late (the due date is not in it)
            when.timestamp() if when else mtime,
            read,
            identity=("gradescope", person.identity),
            note=own_problem(own) if own else None,
            sid=person.sid,
            email=person.email,
            submitted_at=when.isoformat() if when else None,
            group=tuple((("gradescope", other.identity), other.name) for other in people if other is not person),
        )
        for person in people
    ]
