"""Gradescope's "Export Submissions" download: which students sent each submission folder.

Gradescope publishes no schema for this export, so the layout below is the one real exports show:
otter-grader's ``GradescopeParser`` (``otter/metadata.py``, which keys each folder's submitters by
``submission_metadata.yml``) and the export in its tests
(``test/test-grade/gradescope-export/submission_metadata.yml``), and exports committed to public course
repositories (folders ``submission_<id>``, group submissions with several submitters, ``:history``)::

    assignment_<id>_export/              one top folder (its name varies)
        submission_metadata.yml
        submission_<id>/<what the students uploaded>
        ...

``submission_metadata.yml`` maps each folder name to a record whose keys are Ruby symbols, written with
a leading colon: ``:submitters`` lists one mapping per member (``:name``, ``:sid``, ``:email``; a group
submission lists several), ``:created_at`` is the upload time (a YAML timestamp in UTC), and ``:score``,
``:results``, ``:history`` (earlier uploads) are not read here.

The file comes from Gradescope, but the names and ids in it were typed by people, so it is read like any
upload: bounded in size, with PyYAML's safe loader (its C form when present: libyaml caps nesting depth,
and the pure-Python one turns deep nesting into a RecursionError caught below), and only the fields
above are looked at, each checked for its type. Aliases are never walked, so an alias bomb costs nothing.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import yaml

METADATA_NAME = "submission_metadata.yml"
# One record is about 1 KB, ten times that with autograder output and history; 32 MiB is a class of
# thousands and about 40 s of parsing at libyaml's speed here.
MAX_METADATA_BYTES = 32 * 2**20
MAX_FIELD_CHARS = 200  # a name, a student id or an email longer than this is not one
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ExportError(ValueError):
    """``submission_metadata.yml`` as a whole cannot be read, so no folder of the export can be attributed."""


@dataclass(frozen=True)
class Submitter:
    name: str
    sid: str | None  # the student id the course's roster gave Gradescope (may be missing)
    email: str | None

    @property
    def identity(self) -> str | None:
        """What tells this student apart: the student id where the roster has one, else the email."""
        return self.sid or self.email


@dataclass(frozen=True)
class ExportSubmission:
    folder: str  # the folder's name in the export, and its key in submission_metadata.yml
    submitters: tuple[Submitter, ...]
    created_at: datetime.datetime | None  # when Gradescope received it (UTC)

    @property
    def submission_id(self) -> int | None:
        number = self.folder.removeprefix("submission_")
        return int(number) if number.isascii() and number.isdigit() else None


@dataclass
class ExportMetadata:
    submissions: dict[str, ExportSubmission]
    problems: list[str]  # records or submitters that could not be read, each in a sentence


def read_metadata(data: bytes) -> ExportMetadata:
    """Parse ``submission_metadata.yml``; ExportError when the file as a whole is unusable."""
    if len(data) > MAX_METADATA_BYTES:
        raise ExportError(
            f"{METADATA_NAME} is {len(data) // 2**20} MiB, over the {MAX_METADATA_BYTES // 2**20} MiB read"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ExportError(f"{METADATA_NAME} is not UTF-8 text ({error.reason} at byte {error.start})") from None
    try:
        top, twice = _load(text)
    except RecursionError:
        raise ExportError(f"{METADATA_NAME} is nested too deeply to read") from None
    except yaml.YAMLError as error:
        raise ExportError(f"{METADATA_NAME} is not valid YAML ({str(error)[:160]})") from None
    if not isinstance(top, dict):
        raise ExportError(f"{METADATA_NAME} holds a {type(top).__name__}, not a mapping of submission folders")
    found = ExportMetadata({}, [])
    for folder in sorted(twice):
        # YAML keeps the last of two records under one key: either could be the real one, so neither is.
        found.problems.append(
            f"{folder!r} is listed {twice[folder]} times in {METADATA_NAME}; none of its records is read and its "
            "files are not graded"
        )
    for key, record in top.items():
        if isinstance(key, bool) or not isinstance(key, (str, int)):
            found.problems.append(f"{METADATA_NAME} has an entry keyed by a {type(key).__name__}; skipped")
            continue
        folder = str(key)
        if folder in twice:
            continue
        if not isinstance(record, dict):
            found.problems.append(f"{folder!r} in {METADATA_NAME} is a {type(record).__name__}, not a record; skipped")
            continue
        submitters = _field(record, "submitters")
        if not isinstance(submitters, list):
            found.problems.append(f"{folder!r} in {METADATA_NAME} lists no submitters; its files are not graded")
            continue
        people = []
        for index, person in enumerate(submitters):
            who = _submitter(person)
            if isinstance(who, str):
                found.problems.append(f"{folder!r}: submitter {index + 1} in {METADATA_NAME} {who}; not graded")
            else:
                people.append(who)
        found.submissions[folder] = ExportSubmission(folder, tuple(people), _timestamp(_field(record, "created_at")))
    return found


def _load(text: str) -> tuple[object, dict[str, int]]:
    """The document, and each top-level key written more than once (a folder named twice) with its count."""
    loader = _LOADER(text)  # a safe loader (SafeConstructor), see above
    try:
        node = loader.get_single_node()
        counts: dict[str, int] = {}
        if isinstance(node, yaml.MappingNode):
            for key, _ in node.value:
                if isinstance(key, yaml.ScalarNode):
                    counts[key.value] = counts.get(key.value, 0) + 1
        top = None if node is None else loader.construct_document(node)
    finally:
        loader.dispose()
    return top, {key: n for key, n in counts.items() if n > 1}


def _field(record: dict, name: str):
    """A record's field under its Ruby-symbol key (``:name``), or the plain key as some tools rewrite it."""
    return record.get(f":{name}", record.get(name))


def _text(value) -> str | None:
    """A field as text: strings (stripped) and integers (an unquoted id); anything else is absent."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        value = str(value)
    if not isinstance(value, str):
        return None
    return value.strip() or None


def _submitter(person) -> Submitter | str:
    """The submitter, or why it cannot be one."""
    if not isinstance(person, dict):
        return f"is a {type(person).__name__}, not a record"
    name, sid, email = (_text(_field(person, key)) for key in ("name", "sid", "email"))
    if sid is None and email is None:
        return "has neither a student id nor an email"
    for label, value in (("student id", sid), ("email", email)):
        if value is not None and len(value) > MAX_FIELD_CHARS:
            return f"has a {label} of {len(value)} characters"
    return Submitter((name or sid or email or "")[:MAX_FIELD_CHARS], sid, email)


def _timestamp(value) -> datetime.datetime | None:
    """``:created_at`` as YAML reads it (a timestamp), or as a string where a tool quoted it."""
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
    if isinstance(value, str) and len(value) <= 64:
        try:
            return _timestamp(datetime.datetime.fromisoformat(value.strip().replace(" Z", "+00:00")))
        except ValueError:
            return None
    return None
