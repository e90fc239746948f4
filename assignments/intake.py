"""LMS intake: turn a bulk download (one .ipynb, a folder, or a zip) into one submission per student.

Layouts it reads, in a zip or a folder alike (a single top folder around everything, such as a zipped
download folder, is looked through when what it holds is clearly a class: LMS names, or several items
none of which is a notebook named after the assignment):

- Gradescope's "Export Submissions": ``submission_metadata.yml`` at the top and one folder per submission
  (``gradescope/submission_metadata.py``). The metadata says who sent each folder (student id, else email; a group
  submission belongs to every member, each graded on it) and when.
- Canvas:  ``doejane_12345_67890_transformers.ipynb`` and late ones ``doejane_LATE_12345_67890_...``
  (name lowercase without separators, Canvas user id, submission/attachment id, the uploaded name)
- Moodle:  ``Jane Doe_12345_assignsubmission_file_transformers.ipynb`` (or a folder
  ``Jane Doe_12345_assignsubmission_file_/transformers.ipynb``)
- a plain folder: ``jdoe.ipynb`` is student ``jdoe``
- one folder per student: ``jdoe/<anything>.ipynb`` is student ``jdoe`` (nbgrader's
  ``submitted/<student>/<assignment>/`` too)

Who sent a file is read from the outermost name the LMS or the instructor wrote, never from anything a
student named: not from the file name after an LMS prefix, not from paths inside a student's or a
submission's folder. A backslash is a character of a name, never a folder separator (zip names use "/").
A name that says who sent a file is refused when it holds a backslash, a NUL, a control character or
only dots, or names two Moodle participants; the same in a student's own file name is flagged and the
file kept in that student's slot. The student key is the LMS user id where there is one (it joins the
LMS gradebook), else the name made safe for a folder; two different students whose keys would coincide
once letter case, Unicode form or the characters a key drops are ignored are kept apart under distinct
keys and flagged for staff. Class-level problems (duplicates, late files, wrong files, students without
a notebook, unreadable or unsafe entries) come back as ``IntakeFinding`` records.

Notebooks are read the way the grading doors read them (``grading.submission.load``), so a file intake
accepts is one the doors can grade. Nothing is ever written where an archive entry's name says: each
kept notebook is copied to ``<dest>/<student>/<safe name>.ipynb``, and an archive is read with caps on
entry count, per-entry and total uncompressed size, so a zip bomb stops the intake with a clear error
instead of filling the disk.

Why one module of this length: its sections (names and layouts, student keys, wrong-assignment
detection, bounded readers, the choice between a student's files) all build one ``IntakeResult`` and its
findings; they share the limits and the finding model, and none is used anywhere else.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import unicodedata
import zipfile
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

from assignments.gradescope import submission_metadata as gradescope_export

MAX_ENTRIES = 5000  # files in one archive
MAX_ENTRY_BYTES = 64 * 2**20  # one uncompressed file (a notebook with outputs is a few MB)
MAX_TOTAL_BYTES = 1024 * 2**20  # everything read from one archive
MAX_RATIO = 200  # uncompressed / compressed size of one entry

# Ids are ASCII digits: \d would also take other scripts' digits, which a key then keeps apart from the
# ASCII id they look like. Canvas writes the name part without separators; one with a backslash is not
# Canvas' (it reads as a folder on Windows). re.S: a newline in a student's name must not end a match early.
CANVAS = re.compile(
    r"^(?P<name>[^_\s/\\\x00]+?)(?P<late>_LATE)?_(?P<user>[0-9]+)_(?P<sub>[0-9]+)_(?P<original>.+)$", re.S
)
# Canvas' text-entry and website-URL submissions carry no attachment id: doejane_12345_text.html
CANVAS_INLINE = re.compile(
    r"^(?P<name>[^_\s/\\\x00]+?)(?P<late>_LATE)?_(?P<user>[0-9]+)_(?P<original>(?:text|link|url)\.html?)$"
)
# A lookahead, so findall sees marks that share an underscore ("..._222_assignsubmission_file_111_...").
MOODLE_MARK = re.compile(r"(?=_([0-9]+)_assignsubmission_(?:file|onlinetext)_)")
# Moodle ends a folder name with its own mark, so the last mark is Moodle's whatever the display name says.
MOODLE_FOLDER = re.compile(r"^(?P<name>.+)_(?P<user>[0-9]+)_assignsubmission_(?:file|onlinetext)_$", re.S)
MOODLE_FILE = re.compile(
    r"^(?P<name>.+?)_(?P<user>[0-9]+)_assignsubmission_(?:file|onlinetext)_(?P<original>.*)$", re.S
)
COPY_SUFFIX = re.compile(r"(?:-\d+|\s*\(\d+\))$")  # Canvas "-1", browsers " (1)"
IGNORED_PARTS = {"__MACOSX", ".ipynb_checkpoints", ".DS_Store", "Thumbs.db", "desktop.ini"}
LMS_IDS = ("canvas", "moodle")  # layouts whose key is an id the LMS gave (never made from a name)
# Characters that reorder how a name is displayed, so two names can look alike and differ.
BIDI_CONTROLS = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class IntakeError(Exception):
    """The input as a whole cannot be read (not a notebook, folder or zip; a zip bomb; a corrupt zip)."""


@dataclass
class Submission:
    student: str  # key used for results files and gradebooks (LMS user id when known)
    path: str | None  # the notebook copied under dest; None: this student has no notebook
    original_name: str  # the name the student uploaded (without the LMS prefix)
    late: bool = False
    name: str = ""  # display name from the LMS ("doejane", "Jane Doe", Gradescope's name)
    lms: str = "plain"  # "canvas" | "moodle" | "gradescope" | "plain" | "folder"
    user_id: str | None = None  # LMS user id (Canvas user id, Moodle participant id)
    submission_id: int | None = None  # Canvas submission/attachment id, Gradescope submission id (higher is newer)
    entry: str = ""  # where it came from: the zip entry or the relative path
    sid: str | None = None  # Gradescope: the student id of the course roster
    email: str | None = None  # Gradescope: the student's email
    submitted_at: str | None = None  # Gradescope: when it was uploaded (ISO 8601, UTC)
    group: list[str] = field(default_factory=list)  # the other members' keys of a group submission


@dataclass
class IntakeFinding:
    code: str  # "duplicate" | "late" | "not-a-notebook" | "wrong-assignment" | "missing-notebook"
    # | "malformed-notebook" | "unreadable-entry" | "unsafe-path" | "unsafe-name" | "name-collision"
    # | "group-submission" | "unattributed"
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
    layout: str = ""  # how the input was read: "canvas", "gradescope", "folder", "canvas, plain", ...

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
            self.layout,
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
            layout=data.get("layout", ""),
        )

    def summary(self) -> str:
        counts: dict[str, int] = {}
        for finding in self.findings:
            counts[finding.code] = counts.get(finding.code, 0) + 1
        parts = [f"{len(self.submissions)} submission(s)"]
        if self.missing:
            parts.append(f"{len(self.missing)} student(s) without a notebook")
        parts += [f"{n} {code}" for code, n in sorted(counts.items())]
        read_as = f" (read as {self.layout})" if self.layout else ""
        return f"{self.assignment}{read_as}: " + ", ".join(parts)


# ---------------------------------------------------------------- names


@dataclass
class _Candidate:
    entry: str  # relative path in the archive or folder ("" for a submission that arrived without files)
    original_name: str
    student: str  # the key; _assign_keys settles it
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


def safe_key(text: str) -> str:
    """A student key that is safe as a file name and an nbgrader student id.

    A name with nothing ASCII left (a name in another script) gets a key made from its digest, so two
    such names never share "unknown"."""
    key = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._-")[:80]
    return key or "id-" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def _safe_filename(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._ -]+", "_", PurePosixPath(text.replace("\\", "/")).name).strip(" .")
    return name[:120] or "submission.ipynb"


def _name_problem(text: str) -> str | None:
    """Why this name cannot be trusted to say whose a file is (None: it can)."""
    if "\0" in text:
        return "holds a NUL byte"
    if "\\" in text:
        return "holds a backslash (a folder separator on Windows)"
    if "/" in text:
        return "holds a path separator"
    if any(unicodedata.category(ch) == "Cc" or ch in BIDI_CONTROLS for ch in text):
        return "holds control characters"
    if not text.strip(". "):
        return "is only dots"
    return None


def _own_problem(path: str) -> str | None:
    """What is odd about a name the student chose (a path inside their slot), if anything."""
    return next(filter(None, (_name_problem(part) for part in path.split("/") if part)), None)


def parse_name(relative: str) -> dict:
    """Who sent this file, from its name. ``relative`` is the path below the export's top (any wrapper
    folder removed), with '/' separators; a backslash is part of a name.

    ``student`` is the proposed key, ``identity`` the name or id it comes from, ``problem`` why that
    name cannot be trusted (the file is refused), ``note`` what is odd about the student's own name."""
    parts = [p for p in relative.split("/") if p] or [relative]
    base = parts[-1]
    if len(parts) > 1:
        # The outermost folder is the LMS's or the instructor's; anything inside it is the student's,
        # including a name that imitates a classmate's folder or a Canvas name, so a folder always wins.
        inner = "/".join(parts[1:])
        folder = MOODLE_FOLDER.match(parts[0])
        if folder:
            return _who("moodle", folder["user"], folder["name"].strip(), base, own=inner, user_id=folder["user"])
        return _who("folder", parts[0], parts[0], base, own=inner, problem=_name_problem(parts[0]))
    marks = set(MOODLE_MARK.findall(base))
    canvas = CANVAS.match(base) or CANVAS_INLINE.match(base)
    if canvas:
        if marks - {canvas["user"]}:
            # A Moodle name in a Canvas name: one of the two is a student's invention; which cannot be told.
            return _refused(base, f"reads as Canvas user {canvas['user']} and as Moodle participant(s) {sorted(marks)}")
        return _who(
            "canvas",
            canvas["user"],
            canvas["name"],
            canvas["original"],
            own=canvas["original"],
            user_id=canvas["user"],
            late=bool(canvas["late"]),
            submission_id=int(canvas["sub"]) if "sub" in canvas.groupdict() else None,
        )
    if len(marks) > 1:
        return _refused(base, f"names several Moodle participants ({', '.join(sorted(marks))})")
    moodle = MOODLE_FILE.match(base)
    if moodle:
        original = moodle["original"] or base
        return _who("moodle", moodle["user"], moodle["name"].strip(), original, own=original, user_id=moodle["user"])
    stem = PurePosixPath(base).stem
    return _who("plain", stem, stem, base, problem=_name_problem(base) or _name_problem(stem))


def _who(lms, identity, name, original, *, own="", problem=None, user_id=None, late=False, submission_id=None):
    return {
        "lms": lms,
        "identity": identity,
        "name": name,
        "user_id": user_id,
        "submission_id": submission_id,
        "late": late,
        "original_name": original,
        "student": identity if lms in LMS_IDS else safe_key(identity),
        "problem": problem,
        "note": _own_problem(own) if own else None,
    }


def _refused(base: str, why: str) -> dict:
    return {**_who("plain", base, base, base), "problem": why}


def _stem(original_name: str) -> str:
    return COPY_SUFFIX.sub("", PurePosixPath(original_name).stem).strip().lower()


def _unsafe(name: str) -> bool:
    """An archive member name that points outside the folder it is extracted into. Zip names separate
    folders with '/' only; a backslash is read as part of a name, and a name holding one is flagged
    where it names someone (``_name_problem``), so it is never a way into another student's folder."""
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return True
    return any(part == ".." for part in name.split("/"))


def _ignored(relative: str) -> bool:
    parts = relative.split("/")
    return any(p in IGNORED_PARTS or p.startswith("._") for p in parts)


# ---------------------------------------------------------------- reading notebooks, wrong-assignment detection


def read_notebook(data: bytes) -> tuple[set[str] | None, str | None]:
    """(grade_ids of its cells, None), or (None, why these bytes are not a notebook the doors can grade).

    The doors' own reader decides, so intake and grading never disagree about what is readable."""
    # Deferred: load's imports reach torch, which readers of an IntakeResult (the exports' roster) never need.
    from .grading.submission.load import load_submission

    nb, _, findings = load_submission(data)
    if nb is None:
        return None, "; ".join(f.message for f in findings if f.severity == "error") or "it cannot be read"
    ids = set()
    for cell in nb.cells:
        grading = cell.get("metadata", {}).get("nbgrader")
        if isinstance(grading, dict) and isinstance(grading.get("grade_id"), str):
            ids.add(grading["grade_id"])
    return ids, None


def notebook_problem(data: bytes) -> str | None:
    """Why these bytes are not a readable notebook (None: they are)."""
    return read_notebook(data)[1]


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
                ids, _ = read_notebook(path.read_bytes())
            except OSError:
                continue
            if ids is not None:
                found[folder.name] = ids
    return found


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
    if fingerprints and assignment in fingerprints and candidate.grade_ids is not None:
        ids = candidate.grade_ids
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
        # The name as stored: zipfile's own cuts it at a NUL byte (and on Windows turns backslashes into
        # '/'), either of which could make it read as someone else's.
        name = info.orig_filename
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
        entries.append((name, mtime, _zip_reader(archive, info, budget, max_entry)))
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


# ---------------------------------------------------------------- layouts: who sent each file


def _identify(entries, assignment: str, findings: list) -> tuple[str, list[_Candidate]]:
    """(the layout read, one candidate per file and student) for the input's entries."""
    paths = [[p for p in relative.split("/") if p] for relative, _, _ in entries]
    root = _gradescope_root(paths)
    if root is not None:
        return "gradescope", _gradescope_candidates(entries, root, findings)
    depth = _wrapper_depth(paths, assignment)
    candidates = []
    for (relative, mtime, read), parts in zip(entries, paths):
        who = parse_name("/".join(parts[depth:]))
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
            _Candidate(
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
        len(parts) == depth + 2 and parts[-1].lower().endswith(".ipynb") and _stem(parts[-1]) == assignment.lower()
        for parts in paths
    )


def _gradescope_candidates(entries, root: list[str], findings: list) -> list[_Candidate]:
    """One candidate per file and submitter of a Gradescope export (a group's file is each member's)."""
    where = "/".join(root + [gradescope_export.METADATA_NAME])
    files = [([p for p in entry[0].split("/") if p], entry) for entry in entries]
    # A zip may hold one name twice; the first copy of the metadata is the one read, any other is a stray file.
    at = next(i for i, (parts, _) in enumerate(files) if parts == root + [gradescope_export.METADATA_NAME])
    try:
        metadata = gradescope_export.read_metadata(files.pop(at)[1][2]())
    except (_EntryError, gradescope_export.ExportError) as error:
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
        problem = _name_problem(person.identity)
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


def _members(sub, people, relative: str, own: str, mtime: float, read) -> list[_Candidate]:
    when = sub.created_at
    return [
        _Candidate(
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
            note=_own_problem(own) if own else None,
            sid=person.sid,
            email=person.email,
            submitted_at=when.isoformat() if when else None,
            group=tuple((("gradescope", other.identity), other.name) for other in people if other is not person),
        )
        for person in people
    ]


# ---------------------------------------------------------------- student keys


def _normal(text: str) -> str:
    """What a name is once Unicode compatibility forms and letter case no longer count."""
    return unicodedata.normalize("NFKC", text).casefold()


def _assign_keys(candidates: list[_Candidate], findings: list) -> dict[tuple, str]:
    """Settle each identity's key so that no two people share one, even on a case-insensitive disk.

    Identities collide when their proposed keys match ignoring case, or their names match once NFKC and
    case are ignored; every member of such a group is flagged, and all but at most one LMS id (which is
    what the gradebook joins on) get a key with their identity's digest appended."""
    proposed: dict[tuple, str] = {}
    for c in candidates:
        proposed.setdefault(c.identity, c.student)
    parent = {identity: identity for identity in proposed}

    def find(identity):
        while parent[identity] != identity:
            parent[identity] = parent[parent[identity]]
            identity = parent[identity]
        return identity

    first_with: dict[tuple, tuple] = {}
    for identity, key in proposed.items():
        for form in (("key", key.casefold()), ("name", _normal(identity[1]))):
            if form in first_with:
                parent[find(identity)] = find(first_with[form])
            else:
                first_with[form] = identity
    groups: dict[tuple, list[tuple]] = {}
    for identity in proposed:
        groups.setdefault(find(identity), []).append(identity)
    final = dict(proposed)
    for members in groups.values():
        if len(members) < 2:
            continue
        lms_ids = [m for m in members if m[0] in LMS_IDS]
        for identity in members:
            if not (len(lms_ids) == 1 and identity == lms_ids[0]):
                digest = hashlib.sha256(repr(identity).encode("utf-8", "surrogatepass")).hexdigest()[:8]
                final[identity] = f"{proposed[identity][:70]}-{digest}"
        for identity in members:
            others = ", ".join(_describe(m) for m in members if m != identity)
            findings.append(
                IntakeFinding(
                    "name-collision",
                    f"{_describe(identity)} and {others} would be filed as one student (the names differ only "
                    "in letter case, Unicode form or characters a student key cannot hold); kept apart, this "
                    f"one as {final[identity]!r}: check who is who",
                    final[identity],
                    "",
                )
            )
    for c in candidates:
        c.student = final[c.identity]
    return final


def _describe(identity: tuple) -> str:
    layout, name = identity
    what = {
        "canvas": "Canvas user",
        "moodle": "Moodle participant",
        "gradescope": "Gradescope student",
        "folder": "the folder",
        "plain": "the file",
    }[layout]
    return f"{what} {ascii(name)}"  # ascii(): two names that look alike print differently


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
    layout, candidates = _identify([e for e in entries if not _ignored(e[0])], assignment, findings)
    keys = _assign_keys(candidates, findings)
    by_student: dict[str, list[_Candidate]] = {}
    others: dict[str, list[_Candidate]] = {}  # non-notebook files (and empty submissions), per student
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
        for c in files:
            try:
                _inspect(c)
            except _EntryError as error:
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
            c.wrong_assignment = None if c.problem else _which_assignment(c, assignment, fingerprints, known)
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


def _inspect(c: _Candidate) -> None:
    """Read the candidate once: its grade_ids, or why it is not a readable notebook."""
    if c.grade_ids is None and c.problem is None:
        c.grade_ids, c.problem = read_notebook(c.read())


def _record(c: _Candidate, path: str | None, keys: dict[tuple, str]) -> Submission:
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
