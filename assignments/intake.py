"""LMS intake: turn a bulk download (one .ipynb, a folder, or a zip) into one submission per student.

Recognised file names (the file's base name, or the folder it sits in for Moodle's "in folders" layout):

- Canvas:  ``doejane_12345_67890_transformers.ipynb`` and late ones ``doejane_LATE_12345_67890_...``
  (name lowercase without separators, Canvas user id, submission/attachment id, the uploaded name)
- Moodle:  ``Jane Doe_12345_assignsubmission_file_transformers.ipynb`` (or a folder
  ``Jane Doe_12345_assignsubmission_file_/transformers.ipynb``)
- anything else: the student id is the file stem (``jdoe.ipynb`` is student ``jdoe``)

The student key of a submission is the LMS user id when the name carries one (it joins the LMS
gradebook), otherwise the sanitised stem. Class-level problems (duplicates, late files, wrong files,
students without a notebook, unreadable or unsafe zip entries) come back as ``IntakeFinding`` records.

Nothing is ever written where an archive entry's name says: each kept notebook is copied to
``<dest>/<student>/<safe name>.ipynb``, and an archive is read with caps on entry count, per-entry and
total uncompressed size, so a zip bomb stops the intake with a clear error instead of filling the disk.

Why one module of this length: its sections (names, wrong-assignment detection, bounded readers, the
choice between a student's files) all build one ``IntakeResult`` and its findings; they share the limits
and the finding model, and none is used anywhere else.
"""

from __future__ import annotations

import json
import os
import re
import stat
import zipfile
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

from . import decoding

MAX_ENTRIES = 5000  # files in one archive
MAX_ENTRY_BYTES = 64 * 2**20  # one uncompressed file (a notebook with outputs is a few MB)
MAX_TOTAL_BYTES = 1024 * 2**20  # everything read from one archive
MAX_RATIO = 200  # uncompressed / compressed size of one entry

CANVAS = re.compile(r"^(?P<name>[^_\s/]+?)(?P<late>_LATE)?_(?P<user>\d+)_(?P<sub>\d+)_(?P<original>.+)$")
# Canvas' text-entry and website-URL submissions carry no attachment id: doejane_12345_text.html
CANVAS_INLINE = re.compile(
    r"^(?P<name>[^_\s/]+?)(?P<late>_LATE)?_(?P<user>\d+)_(?P<original>(?:text|link|url)\.html?)$"
)
MOODLE = re.compile(r"^(?P<name>.+?)_(?P<user>\d+)_assignsubmission_(?:file|onlinetext)_(?P<original>.*)$")
COPY_SUFFIX = re.compile(r"(?:-\d+|\s*\(\d+\))$")  # Canvas "-1", browsers " (1)"
IGNORED_PARTS = {"__MACOSX", ".ipynb_checkpoints", ".DS_Store", "Thumbs.db", "desktop.ini"}


class IntakeError(Exception):
    """The input as a whole cannot be read (not a notebook, folder or zip; a zip bomb; a corrupt zip)."""


@dataclass
class Submission:
    student: str  # key used for results files and gradebooks (LMS user id when known)
    path: str | None  # the notebook copied under dest; None: this student has no notebook
    original_name: str  # the name the student uploaded (without the LMS prefix)
    late: bool = False
    name: str = ""  # display name from the LMS file name ("doejane", "Jane Doe")
    lms: str = "plain"  # "canvas" | "moodle" | "plain"
    user_id: str | None = None  # LMS user id (Canvas user id, Moodle participant id)
    submission_id: int | None = None  # Canvas submission/attachment id (higher is newer)
    entry: str = ""  # where it came from: the zip entry or the relative path


@dataclass
class IntakeFinding:
    code: str  # "duplicate" | "late" | "not-a-notebook" | "wrong-assignment" | "missing-notebook"
    # | "unreadable-entry" | "unsafe-path" | "ignored"
    message: str
    student: str | None = None
    file: str = ""
    severity: str = "warning"  # "error" | "warning" | "info"


@dataclass
class IntakeResult:
    assignment: str
    source: str
    submissions: list[Submission] = field(default_factory=list)  # one per student, with a notebook
    missing: list[Submission] = field(default_factory=list)  # students who sent files but no notebook
    findings: list[IntakeFinding] = field(default_factory=list)

    def students(self) -> list[str]:
        return [s.student for s in self.submissions]

    def roster(self) -> dict[str, dict]:
        """student key -> what the LMS told us about them (the Canvas exporter reads this)."""
        return {
            s.student: {"name": s.name, "user_id": s.user_id, "lms": s.lms, "late": s.late}
            for s in self.submissions + self.missing
        }

    def merged_into(self, earlier: IntakeResult) -> IntakeResult:
        """This intake (a regrade of some students) joined with an earlier one of the same run: students
        found now replace their earlier entries and findings, everyone else's are kept as they were."""
        now = {s.student for s in self.submissions + self.missing}
        return IntakeResult(
            self.assignment,
            self.source,
            sorted(
                [s for s in earlier.submissions if s.student not in now] + self.submissions, key=lambda s: s.student
            ),
            sorted([s for s in earlier.missing if s.student not in now] + self.missing, key=lambda s: s.student),
            [f for f in earlier.findings if f.student is not None and f.student not in now] + self.findings,
        )

    def to_dict(self) -> dict:
        return asdict(self)

    def save(self, path: Path) -> Path:
        """Write the manifest (``grades/<assignment>/intake.json`` by convention)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: Path) -> IntakeResult:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(
            assignment=data["assignment"],
            source=data["source"],
            submissions=[Submission(**s) for s in data.get("submissions", [])],
            missing=[Submission(**s) for s in data.get("missing", [])],
            findings=[IntakeFinding(**f) for f in data.get("findings", [])],
        )

    def summary(self) -> str:
        counts: dict[str, int] = {}
        for finding in self.findings:
            counts[finding.code] = counts.get(finding.code, 0) + 1
        parts = [f"{len(self.submissions)} submission(s)"]
        if self.missing:
            parts.append(f"{len(self.missing)} student(s) without a notebook")
        parts += [f"{n} {code}" for code, n in sorted(counts.items())]
        return f"{self.assignment}: " + ", ".join(parts)


# ---------------------------------------------------------------- names


@dataclass
class _Candidate:
    entry: str  # relative path in the archive or folder
    original_name: str
    student: str
    name: str
    lms: str
    user_id: str | None
    submission_id: int | None
    late: bool
    mtime: float
    read: object  # callable returning bytes (bounded)
    wrong_assignment: str | None = None


def safe_key(text: str) -> str:
    """A student key that is safe as a file name and an nbgrader student id."""
    key = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._-")
    return key[:80] or "unknown"


def _safe_filename(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._ -]+", "_", PurePosixPath(text.replace("\\", "/")).name).strip(" .")
    return name[:120] or "submission.ipynb"


def parse_name(relative: str) -> dict:
    """Who sent this file, from its LMS name. ``relative`` uses '/' separators."""
    parts = [p for p in relative.split("/") if p]
    base = parts[-1] if parts else relative
    # Moodle names the student's folder "…_assignsubmission_file_" (or a flat file the same way). The
    # outermost such folder is the LMS's own; anything inside it is the student's, including a file name
    # that imitates a classmate's folder or a Canvas name, so a folder's identity always wins.
    folder = next((m for m in map(MOODLE.match, parts[:-1]) if m), None)
    canvas = None if folder else CANVAS.match(base) or CANVAS_INLINE.match(base)
    if canvas:
        return {
            "lms": "canvas",
            "name": canvas["name"],
            "user_id": canvas["user"],
            "submission_id": int(canvas["sub"]) if "sub" in canvas.groupdict() else None,
            "late": bool(canvas["late"]),
            "original_name": canvas["original"],
            "student": canvas["user"],
        }
    match = folder or MOODLE.match(base)
    if match:
        original = base if folder else match["original"]
        return {
            "lms": "moodle",
            "name": match["name"].strip(),
            "user_id": match["user"],
            "submission_id": None,
            "late": False,
            "original_name": original or base,
            "student": match["user"],
        }
    stem = PurePosixPath(base).stem
    return {
        "lms": "plain",
        "name": stem,
        "user_id": None,
        "submission_id": None,
        "late": False,
        "original_name": base,
        "student": safe_key(stem),
    }


def _stem(original_name: str) -> str:
    return COPY_SUFFIX.sub("", PurePosixPath(original_name).stem).strip().lower()


def _unsafe(name: str) -> bool:
    """An archive member name that points outside the folder it is extracted into."""
    normal = name.replace("\\", "/")
    if normal.startswith("/") or re.match(r"^[A-Za-z]:", normal):
        return True
    return any(part == ".." for part in normal.split("/"))


def _ignored(relative: str) -> bool:
    parts = relative.split("/")
    return any(p in IGNORED_PARTS or p.startswith("._") for p in parts)


# ---------------------------------------------------------------- wrong-assignment detection


def assignment_fingerprints(root: Path | None = None) -> dict[str, set[str]]:
    """assignment -> grade_ids of its source notebook (used to recognise another assignment's notebook)."""
    from .course import default

    root = Path(root) if root else default().source_dir
    found: dict[str, set[str]] = {}
    if not root.is_dir():
        return found
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        for path in sorted(folder.glob("*.ipynb")):
            try:
                found[folder.name] = _grade_ids(path.read_bytes())
            except (OSError, ValueError):
                continue
    return found


class MalformedNotebook(ValueError):
    """An entry that is not a notebook's JSON (undecodable, too deep, wrong shapes)."""


def _grade_ids(data: bytes) -> set[str]:
    """grade_ids of a notebook's cells; MalformedNotebook for anything that is not notebook-shaped JSON."""
    try:
        # Other encodings are read, not refused; the grader reports them (decoding is said once, there).
        nb = json.loads(decoding.decode(data).text)
    except RecursionError:  # json's C decoder recurses once per nesting level
        raise MalformedNotebook("its JSON is nested too deeply to read") from None
    except decoding.NotText as error:
        raise MalformedNotebook(f"it is not text: {error}") from None
    except ValueError as error:
        raise MalformedNotebook(f"it is not valid JSON ({str(error)[:80]})") from None
    if not isinstance(nb, dict):
        raise MalformedNotebook(f"its JSON is a {type(nb).__name__}, not a notebook object")
    cells = nb.get("cells", [])
    if not isinstance(cells, list):
        raise MalformedNotebook(f"its 'cells' is a {type(cells).__name__}, not a list")
    ids = set()
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict):
            raise MalformedNotebook(f"cell {index} is a {type(cell).__name__}, not an object")
        meta = cell.get("metadata", {})
        if not isinstance(meta, dict):
            raise MalformedNotebook(f"cell {index}'s metadata is a {type(meta).__name__}, not an object")
        grading = meta.get("nbgrader", {})
        if isinstance(grading, dict) and isinstance(grading.get("grade_id"), str):
            ids.add(grading["grade_id"])
    return ids


def notebook_problem(data: bytes) -> str | None:
    """Why these bytes are not a readable notebook (None: they are)."""
    try:
        _grade_ids(data)
    except MalformedNotebook as error:
        return str(error)
    return None


def _known_assignments(fingerprints: dict[str, set[str]]) -> set[str]:
    from .course import default

    return set(default().order) | set(fingerprints)


def _which_assignment(
    candidate: _Candidate, assignment: str, fingerprints: dict[str, set[str]], known: set[str]
) -> str | None:
    """Name of the other assignment this notebook belongs to, when recognisable; else None."""
    stem = _stem(candidate.original_name)
    if stem != assignment.lower() and stem in {k.lower() for k in known}:
        return next(k for k in known if k.lower() == stem)
    if fingerprints and assignment in fingerprints:
        try:
            ids = _grade_ids(candidate.read())
        except (MalformedNotebook, _EntryError):
            return None  # reported by _collect as a malformed-notebook finding
        # Only grade_ids that belong to one assignment count (every notebook has "setup", say).
        score = {}
        for name, own in fingerprints.items():
            others = set().union(*(fp for other, fp in fingerprints.items() if other != name))
            score[name] = len(ids & (own - others))
        best = max((n, name) for name, n in score.items() if name != assignment) if len(score) > 1 else (0, None)
        if best[0] >= 2 and best[0] > score[assignment]:
            return best[1]
    return None


# ---------------------------------------------------------------- readers


class _EntryError(Exception):
    pass


class _Budget:
    """Counts bytes read from an archive; raises IntakeError past the caps."""

    def __init__(self, max_total: int):
        self.max_total = max_total
        self.used = 0

    def take(self, n: int, what: str):
        self.used += n
        if self.used > self.max_total:
            raise IntakeError(
                f"archive expands to more than {self.max_total // 2**20} MiB "
                f"(stopped while reading {what}); refusing it as a possible zip bomb"
            )


class _Reader:
    """Reads one file on demand, bounded; keeps the bytes until ``release``."""

    def __init__(self, opener, declared: int, max_entry: int, budget: _Budget | None, what: str, compressed: int = 0):
        self.opener, self.declared, self.max_entry = opener, declared, max_entry
        self.budget, self.what, self.compressed = budget, what, compressed
        self.data: bytes | None = None

    def __call__(self) -> bytes:
        if self.data is not None:
            return self.data
        if self.declared > self.max_entry:
            raise _EntryError(f"is {self.declared} bytes, over the {self.max_entry // 2**20} MiB limit")
        if self.compressed and self.declared > 2**20 and self.declared / self.compressed > MAX_RATIO:
            raise _EntryError(f"has a compression ratio over {MAX_RATIO}:1 (possible zip bomb)")
        chunks, size = [], 0
        try:
            with self.opener() as handle:
                while True:
                    chunk = handle.read(2**16)
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > self.max_entry:
                        raise _EntryError(f"expands past the {self.max_entry // 2**20} MiB limit")
                    if self.budget is not None:
                        self.budget.take(len(chunk), self.what)
                    chunks.append(chunk)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as error:
            raise _EntryError(f"is corrupt or unreadable ({type(error).__name__}: {error})") from None
        except RuntimeError as error:  # an encrypted entry
            raise _EntryError(f"cannot be read ({error})") from None
        except NotImplementedError as error:  # an unsupported compression method
            raise _EntryError(f"uses an unsupported compression method ({error})") from None
        self.data = b"".join(chunks)
        return self.data

    def release(self) -> None:
        self.data = None


def _zip_reader(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: _Budget, max_entry: int):
    return _Reader(lambda: archive.open(info), info.file_size, max_entry, budget, info.filename, info.compress_size)


def _file_reader(path: Path, max_entry: int):
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    return _Reader(lambda: open(path, "rb"), size, max_entry, None, str(path))


def _scan_zip(path: Path, findings: list, max_entries: int, max_entry: int, max_total: int):
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as error:
        raise IntakeError(f"{path} is not a readable zip file ({error})") from None
    infos = archive.infolist()
    if len(infos) > max_entries:
        archive.close()
        raise IntakeError(
            f"{path} holds {len(infos)} entries, over the limit of {max_entries}; refusing it as a possible zip bomb"
        )
    # Only notebooks are ever read, so only they count (a student's stray video does not sink the class).
    declared = sum(i.file_size for i in infos if not i.is_dir() and i.filename.lower().endswith(".ipynb"))
    if declared > max_total:
        archive.close()
        raise IntakeError(
            f"{path} declares {declared // 2**20} MiB uncompressed, over the limit of "
            f"{max_total // 2**20} MiB; refusing it as a possible zip bomb"
        )
    budget = _Budget(max_total)
    entries = []
    for info in infos:
        if info.is_dir():
            continue
        name = info.filename
        if _unsafe(name):
            findings.append(
                IntakeFinding(
                    "unsafe-path",
                    f"skipped archive entry {name!r}: its path points outside the extraction folder",
                    None,
                    name,
                    "error",
                )
            )
            continue
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            findings.append(
                IntakeFinding(
                    "unsafe-path", f"skipped archive entry {name!r}: it is a symbolic link", None, name, "error"
                )
            )
            continue
        mtime = _zip_mtime(info)
        entries.append((name.replace("\\", "/"), mtime, _zip_reader(archive, info, budget, max_entry)))
    return archive, entries


def _zip_mtime(info: zipfile.ZipInfo) -> float:
    import datetime

    try:
        return datetime.datetime(*info.date_time).timestamp()
    except (ValueError, OverflowError):
        return 0.0


def _scan_folder(root: Path, findings: list, max_entries: int, max_entry: int, skip: Path | None = None):
    entries = []
    skip = skip.resolve() if skip is not None else None
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(
            d for d in dirs if d not in IGNORED_PARTS and (skip is None or (Path(folder) / d).resolve() != skip)
        )
        for file in sorted(files):
            path = Path(folder) / file
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                findings.append(
                    IntakeFinding("unsafe-path", f"skipped {relative}: it is a symbolic link", None, relative, "error")
                )
                continue
            entries.append((relative, path.stat().st_mtime, _file_reader(path, max_entry)))
            if len(entries) > max_entries:
                raise IntakeError(f"{root} holds more than {max_entries} files; refusing it")
    return entries


# ---------------------------------------------------------------- the intake


def collect(
    source: Path,
    assignment: str,
    dest: Path,
    *,
    fingerprints: dict[str, set[str]] | None = None,
    max_entries: int = MAX_ENTRIES,
    max_entry_bytes: int = MAX_ENTRY_BYTES,
    max_total_bytes: int = MAX_TOTAL_BYTES,
) -> IntakeResult:
    """Read ``source`` (a .ipynb, a folder or a zip) and copy one notebook per student under ``dest``.

    ``fingerprints`` (assignment -> grade_ids) lets intake recognise another assignment's notebook by its
    content; by default it is read from ``source/`` of this repository when that exists.
    """
    source, dest = Path(source), Path(dest)
    if fingerprints is None:
        fingerprints = assignment_fingerprints()
    findings: list[IntakeFinding] = []
    archive = None
    if source.is_dir():
        entries = _scan_folder(source, findings, max_entries, max_entry_bytes, skip=dest)
    elif source.is_file() and zipfile.is_zipfile(source) and source.suffix.lower() != ".ipynb":
        archive, entries = _scan_zip(source, findings, max_entries, max_entry_bytes, max_total_bytes)
    elif source.is_file() and source.suffix.lower() == ".zip":
        raise IntakeError(f"{source} is not a readable zip file")
    elif source.is_file():
        entries = [(source.name, source.stat().st_mtime, _file_reader(source, max_entry_bytes))]
    else:
        raise IntakeError(f"{source} does not exist")
    try:
        return _collect(entries, str(source), assignment, dest, fingerprints, findings)
    finally:
        if archive is not None:
            archive.close()


def _collect(entries, source: str, assignment: str, dest: Path, fingerprints, findings) -> IntakeResult:
    known = _known_assignments(fingerprints)
    by_student: dict[str, list[_Candidate]] = {}
    others: dict[str, list[_Candidate]] = {}  # non-notebook files, per student
    for relative, mtime, read in entries:
        if _ignored(relative):
            continue
        who = parse_name(relative)
        candidate = _Candidate(
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
        )
        if PurePosixPath(relative).suffix.lower() == ".ipynb":
            by_student.setdefault(candidate.student, []).append(candidate)
        else:
            others.setdefault(candidate.student, []).append(candidate)

    result = IntakeResult(assignment=assignment, source=source, findings=findings)
    for student, files in sorted(others.items()):
        for c in files:
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
        readable = []
        for c in files:
            try:
                c.read()
            except _EntryError as error:
                findings.append(IntakeFinding("unreadable-entry", f"{c.entry} {error}", student, c.entry, "error"))
                continue
            problem = notebook_problem(c.read())
            if problem:
                # Kept (a damaged notebook is still this student's submission, graded as sent), but
                # said here, so one broken file is that student's finding and never the class's end.
                findings.append(
                    IntakeFinding(
                        "malformed-notebook",
                        f"{c.original_name} is not a readable notebook: {problem}",
                        student,
                        c.entry,
                        "error",
                    )
                )
            c.wrong_assignment = None if problem else _which_assignment(c, assignment, fingerprints, known)
            readable.append(c)
        if not readable:
            first = (files or others[student])[0]
            sent = ", ".join(sorted(c.original_name for c in files + others.get(student, [])))
            findings.append(
                IntakeFinding(
                    "missing-notebook", f"no readable notebook for {assignment}; received: {sent}", student, "", "error"
                )
            )
            result.missing.append(
                Submission(
                    student,
                    None,
                    first.original_name,
                    first.late,
                    first.name,
                    first.lms,
                    first.user_id,
                    first.submission_id,
                    first.entry,
                )
            )
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
        target = dest / student / _target_name(keep.original_name, assignment)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".part")
        tmp.write_bytes(keep.read())
        tmp.replace(target)
        for c in files:
            c.read.release()
        result.submissions.append(
            Submission(
                student,
                str(target),
                keep.original_name,
                keep.late,
                keep.name,
                keep.lms,
                keep.user_id,
                keep.submission_id,
                keep.entry,
            )
        )
    return result


def _target_name(original_name: str, assignment: str) -> str:
    name = _safe_filename(original_name)
    return name if name.lower().endswith(".ipynb") else f"{assignment}.ipynb"


def _preference(c: _Candidate, assignment: str):
    """Sort key: the right assignment first, then the newest (highest submission id, then time)."""
    return (
        c.wrong_assignment is None,
        _stem(c.original_name) == assignment.lower(),
        c.submission_id or -1,
        c.mtime,
        c.entry,
    )


def _why(keep: _Candidate, other: _Candidate, assignment: str) -> str:
    if (keep.wrong_assignment is None) != (other.wrong_assignment is None):
        return "it is this assignment's notebook"
    if (_stem(keep.original_name) == assignment.lower()) != (_stem(other.original_name) == assignment.lower()):
        return f"it is named {assignment}.ipynb"
    if keep.submission_id is not None and other.submission_id is not None:
        return "higher submission id, newer"
    return "newer"
