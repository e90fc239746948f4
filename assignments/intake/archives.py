"""Bounded readers for a zip or a folder: a cap on each entry's uncompressed size and compression ratio,
an allowance per student (files, bytes read, folder depth, name length: ``collection`` applies it once it
knows whose each file is), and whole-archive backstops that only protect the machine; nothing is written
where an entry's name says."""

from __future__ import annotations

import os
import stat
import zipfile
import zlib
from pathlib import Path

from assignments import trees
from assignments.intake.names import IGNORED_PARTS, unsafe_name
from assignments.intake.records import IntakeError
from assignments.runs.manifest import IntakeFinding

MAX_ENTRY_BYTES = 64 * 2**20  # one uncompressed file (a notebook with outputs is a few MB)
MAX_RATIO = 200  # uncompressed / compressed size of one entry
# One student's allowance: what one student can make intake do. Past it, that student gets a finding and
# the class goes on.
MAX_STUDENT_ENTRIES = 200  # files one student sent (a notebook, its data, an editor's leftovers)
MAX_STUDENT_BYTES = 128 * 2**20  # notebooks read for one student (two of the largest a door reads)
MAX_DEPTH = 16  # folders an entry's path goes down, the LMS's own and wrappers included
MAX_NAME_CHARS = 255  # one part of a path (most file systems' limit)
MAX_PATH_CHARS = 1024  # a whole path
# Whole-archive backstops, only for the machine: zipfile holds every entry's record in memory (about half
# a KiB each), and the bytes read are decompression time and, through the notebooks kept, disk. Each is
# a class of 2,500 students at a full allowance (2,500 x 200 entries; 2,500 x 128 MiB), so no normal
# class trips it whatever one student sends; below it every limit is a student's own.
MAX_ENTRIES = 2500 * MAX_STUDENT_ENTRIES
MAX_TOTAL_BYTES = 2500 * MAX_STUDENT_BYTES


class EntryError(Exception):
    pass


class OverAllowance(EntryError):
    """One student's files went past their allowance (``Allowance``); that student's finding."""


class Allowance:
    """The bytes one student's files may still expand to; raises OverAllowance past it."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.used = 0

    def check(self, declared: int) -> None:
        if self.used + declared > self.max_bytes:
            raise OverAllowance(
                f"would take this student's notebooks past the {self.max_bytes // 2**20} MiB one student may send"
            )

    def take(self, n: int) -> None:
        self.used += n
        if self.used > self.max_bytes:
            raise OverAllowance(
                f"takes this student's notebooks past the {self.max_bytes // 2**20} MiB one student may send"
            )


class _Budget:
    """Counts bytes read from an archive; raises IntakeError past the caps."""

    def __init__(self, max_total: int):
        self.max_total = max_total
        self.used = 0

    def take(self, n: int, what: str):
        self.used += n
        if self.used > self.max_total:
            raise IntakeError(
                f"archive expands to more than {self.max_total // 2**20} MiB in all, more than a whole class "
                f"at each student's allowance (stopped while reading {what}); refusing it as a possible zip bomb"
            )


class _Reader:
    """Reads one file on demand, bounded; keeps the bytes until ``release``."""

    def __init__(self, opener, declared: int, max_entry: int, budget: _Budget | None, what: str, compressed: int = 0):
        self.opener, self.declared, self.max_entry = opener, declared, max_entry
        self.budget, self.what, self.compressed = budget, what, compressed
        self.data: bytes | None = None

    def __call__(self, allowance: Allowance | None = None) -> bytes:
        """The bytes, counted against ``allowance`` (the student's, when the reader knows whose it is)."""
        if self.data is not None:
            if allowance is not None:
                allowance.take(len(self.data))
            return self.data
        if self.declared > self.max_entry:
            raise EntryError(f"is {self.declared} bytes, over the {self.max_entry // 2**20} MiB limit")
        if self.compressed and self.declared > 2**20 and self.declared / self.compressed > MAX_RATIO:
            raise EntryError(f"has a compression ratio over {MAX_RATIO}:1 (possible zip bomb)")
        if allowance is not None:
            allowance.check(self.declared)
        chunks, size = [], 0
        try:
            with self.opener() as handle:
                while True:
                    chunk = handle.read(2**16)
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > self.max_entry:
                        raise EntryError(f"expands past the {self.max_entry // 2**20} MiB limit")
                    if allowance is not None:
                        allowance.take(len(chunk))
                    if self.budget is not None:
                        self.budget.take(len(chunk), self.what)
                    chunks.append(chunk)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as error:
            raise EntryError(f"is corrupt or unreadable ({type(error).__name__}: {error})") from None
        except RuntimeError as error:  # an encrypted entry
            raise EntryError(f"cannot be read ({error})") from None
        except NotImplementedError as error:  # an unsupported compression method
            raise EntryError(f"uses an unsupported compression method ({error})") from None
        self.data = b"".join(chunks)
        return self.data

    def release(self) -> None:
        self.data = None


def _zip_reader(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: _Budget, max_entry: int):
    return _Reader(lambda: archive.open(info), info.file_size, max_entry, budget, info.filename, info.compress_size)


def file_reader(path: Path, max_entry: int):
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    return _Reader(lambda: open(path, "rb"), size, max_entry, None, str(path))


def scan_zip(path: Path, findings: list, max_entries: int, max_entry: int, max_total: int):
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as error:
        raise IntakeError(f"{path} is not a readable zip file ({error})") from None
    infos = archive.infolist()
    if len(infos) > max_entries:
        # The backstop (memory): more entries than a whole class sends at each student's allowance.
        archive.close()
        raise IntakeError(
            f"{path} holds {len(infos)} entries, over the limit of {max_entries} for a whole class; refusing it "
            "as a possible zip bomb"
        )
    # No check of the declared sizes here: a forged size is one entry's (refused when it is read), and a
    # student's many entries are that student's (their allowance), so neither refuses the class.
    budget = _Budget(max_total)
    entries = []
    for info in infos:
        if info.is_dir():
            continue
        # The name as stored: zipfile's own cuts it at a NUL byte (and on Windows turns backslashes into
        # '/'), either of which could make it read as someone else's.
        name = info.orig_filename
        if unsafe_name(name):
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


def scan_folder(root: Path, findings: list, max_entries: int, max_entry: int, skip: Path | None = None):
    entries = []
    skip = skip.resolve() if skip is not None else None
    # trees.walk: iterative and depth-bounded (os.walk recurses once per level on Python 3.10 and 3.11)
    tree = trees.walk(
        [root],
        enter=lambda folder, _: (
            os.path.basename(folder) not in IGNORED_PARTS and (skip is None or Path(folder).resolve() != skip)
        ),
    )
    for entry in tree:
        if stat.S_ISDIR(entry.info.st_mode):
            continue
        path = Path(entry.path)
        relative = path.relative_to(root).as_posix()
        if stat.S_ISLNK(entry.info.st_mode):
            findings.append(
                IntakeFinding("unsafe-path", f"skipped {relative}: it is a symbolic link", None, relative, "error")
            )
            continue
        entries.append((relative, entry.info.st_mtime, file_reader(path, max_entry)))
        if len(entries) > max_entries:
            raise IntakeError(f"{root} holds more than {max_entries} files; refusing it")
    for folder in tree.too_deep:
        relative = Path(folder).relative_to(root).as_posix()
        findings.append(
            IntakeFinding(
                "unsafe-path",
                f"skipped {relative}: nested more than {trees.MAX_DEPTH} levels deep",
                None,
                relative,
                "error",
            )
        )
    return entries
