"""Bounded readers for a zip or a folder: caps on entry count, per-entry and total uncompressed size and
compression ratio, so a zip bomb stops the intake with a clear error; nothing is written where an entry's
name says."""

from __future__ import annotations

import os
import stat
import zipfile
import zlib
from pathlib import Path

from .. import trees
from .names import IGNORED_PARTS, unsafe_name
from .records import IntakeError, IntakeFinding

MAX_ENTRIES = 5000  # files in one archive
MAX_ENTRY_BYTES = 64 * 2**20  # one uncompressed file (a notebook with outputs is a few MB)
MAX_TOTAL_BYTES = 1024 * 2**20  # everything read from one archive
MAX_RATIO = 200  # uncompressed / compressed size of one entry


class EntryError(Exception):
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
            raise EntryError(f"is {self.declared} bytes, over the {self.max_entry // 2**20} MiB limit")
        if self.compressed and self.declared > 2**20 and self.declared / self.compressed > MAX_RATIO:
            raise EntryError(f"has a compression ratio over {MAX_RATIO}:1 (possible zip bomb)")
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
