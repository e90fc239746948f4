"""Who sent a file, from the name the LMS or the instructor wrote: each LMS's naming scheme (Canvas, Moodle,
a plain folder, a folder per student), which names are refused or flagged, and the student keys made from
them (an LMS id where there is one, else the name made safe; lookalike keys kept apart)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import PurePosixPath

from assignments.intake.records import Candidate
from assignments.runs.manifest import IntakeFinding

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
LMS_IDS = ("canvas", "moodle")
# How a download is read: the instructor's choice (``--layout``). "auto" reads each name by its form and takes a
# Gradescope export only from structure Gradescope alone writes (layouts.py); "folder" never reads an LMS name
# (a plain folder is one upload, or one folder, per student, whatever a student called the file).
LAYOUTS = (
    "auto",
    "folder",
    "canvas",
    "moodle",
    "gradescope",
)  # layouts whose key is an id the LMS gave (never made from a name)
# Characters that reorder how a name is displayed, so two names can look alike and differ.
BIDI_CONTROLS = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def safe_key(text: str) -> str:
    """A student key that is safe as a file name and an nbgrader student id.

    A name with nothing ASCII left (a name in another script) gets a key made from its digest, so two
    such names never share "unknown"."""
    key = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._-")[:80]
    return key or "id-" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def safe_filename(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._ -]+", "_", PurePosixPath(text.replace("\\", "/")).name).strip(" .")
    return name[:120] or "submission.ipynb"


def name_problem(text: str) -> str | None:
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


def own_problem(path: str) -> str | None:
    """What is odd about a name the student chose (a path inside their slot), if anything."""
    return next(filter(None, (name_problem(part) for part in path.split("/") if part)), None)


def parse_name(relative: str, layout: str = "auto") -> dict:
    """Who sent this file, from its name. ``relative`` is the path below the export's top (any wrapper
    folder removed), with '/' separators; a backslash is part of a name. ``layout`` is how the instructor
    said the download is read ("auto": by each name's form; "folder": no LMS name is read; "canvas",
    "moodle": only that LMS's names say who, any other name is refused).

    ``student`` is the proposed key, ``identity`` the name or id it comes from, ``problem`` why that
    name cannot be trusted (the file is refused), ``note`` what is odd about the student's own name."""
    parts = [p for p in relative.split("/") if p] or [relative]
    base = parts[-1]
    if layout == "folder":
        if len(parts) > 1:
            return _who("folder", parts[0], parts[0], base, own="/".join(parts[1:]), problem=name_problem(parts[0]))
        stem = PurePosixPath(base).stem
        return _who("plain", stem, stem, base, problem=name_problem(base) or name_problem(stem))
    if layout in ("canvas", "moodle"):
        who = parse_name(relative)
        if who["lms"] != layout:
            return _refused(relative, f"is not a {layout.capitalize()} download's name (read as --layout {layout})")
        return who
    if len(parts) > 1:
        # The outermost folder is the LMS's or the instructor's; anything inside it is the student's,
        # including a name that imitates a classmate's folder or a Canvas name, so a folder always wins.
        inner = "/".join(parts[1:])
        folder = MOODLE_FOLDER.match(parts[0])
        if folder:
            return _who("moodle", folder["user"], folder["name"].strip(), base, own=inner, user_id=folder["user"])
        return _who("folder", parts[0], parts[0], base, own=inner, problem=name_problem(parts[0]))
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
    return _who("plain", stem, stem, base, problem=name_problem(base) or name_problem(stem))


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
        "note": own_problem(own) if own else None,
    }


def _refused(base: str, why: str) -> dict:
    return {**_who("plain", base, base, base), "problem": why}


def name_stem(original_name: str) -> str:
    return COPY_SUFFIX.sub("", PurePosixPath(original_name).stem).strip().lower()


def unsafe_name(name: str) -> bool:
    """An archive member name that points outside the folder it is extracted into. Zip names separate
    folders with '/' only; a backslash is read as part of a name, and a name holding one is flagged
    where it names someone (``name_problem``), so it is never a way into another student's folder."""
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return True
    return any(part == ".." for part in name.split("/"))


def ignored_entry(relative: str) -> bool:
    parts = relative.split("/")
    return any(p in IGNORED_PARTS or p.startswith("._") for p in parts)


def _normal(text: str) -> str:
    """What a name is once Unicode compatibility forms and letter case no longer count."""
    return unicodedata.normalize("NFKC", text).casefold()


def assign_keys(candidates: list[Candidate], findings: list) -> dict[tuple, str]:
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
