"""The one zip writer for what goes back to an LMS: every member name is checked before a byte is written.

A member name here is made from student-controlled text (display names, uploaded file names), so it must
not be able to leave the folder an LMS or an instructor extracts it into, or to land on another member:
no absolute path, drive letter, ``..`` or ``.`` part, empty part, backslash, control or
bidirectional-override character, hidden part (a leading ``.``; Moodle also skips a leading ``~``), and no
two names equal once letter case and Unicode form are ignored. Members are regular files only (no
links, no folder entries), sorted, with fixed timestamps, so the same pages give the same bytes.
"""

from __future__ import annotations

import unicodedata
import zipfile
from pathlib import Path

from assignments.intake.names import BIDI_CONTROLS

MAX_NAME_CHARS = 240  # Windows' classic path limit minus room for the folder it is extracted into
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def member_problem(name: str) -> str | None:
    """Why ``name`` cannot be a member of a zip that goes back to an LMS (None: it can)."""
    if not name or len(name) > MAX_NAME_CHARS:
        return f"is empty or longer than {MAX_NAME_CHARS} characters"
    if "\\" in name or ":" in name:
        return "holds a backslash or a colon (a folder or drive on Windows)"
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") or c in BIDI_CONTROLS for c in name):
        return "holds a control or formatting character"
    parts = name.split("/")
    if name.startswith("/") or any(part in ("", ".", "..") for part in parts):
        return "is absolute or has an empty, '.' or '..' part"
    if any(part[0] in ".~" for part in parts):
        return "has a part starting with '.' or '~' (hidden, and skipped by Moodle)"
    return None


def folded(name: str) -> str:
    """What a name is once letter case and Unicode form no longer count (a case-insensitive disk's view)."""
    return unicodedata.normalize("NFKC", name).casefold()


def write_zip(path: Path, members: dict[str, bytes]) -> Path:
    """Write ``members`` (name -> bytes) to the zip ``path``; ValueError naming every bad or colliding name,
    with nothing written."""
    problems = [f"{ascii(name)} {why}" for name in sorted(members) if (why := member_problem(name))]
    seen: dict[str, str] = {}
    for name in sorted(members):
        other = seen.setdefault(folded(name), name)
        if other != name:
            problems.append(f"{ascii(name)} and {ascii(other)} differ only in letter case or Unicode form")
    if problems:
        raise ValueError("refused zip member name(s): " + "; ".join(problems))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with zipfile.ZipFile(partial, "w") as archive:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o100644 << 16  # a regular file, never a link
            archive.writestr(info, members[name])
    partial.replace(path)
    return path
