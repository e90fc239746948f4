"""Walking and removing folder trees a student controls, without recursion and within bounds.

A student decides the shape of an upload, of a kernel's scratch folder and (without namespaces) of what a
kernel leaves in ``/tmp``: 1,200 nested folders are a few lines of code. On Python 3.10 and 3.11
``os.walk``, ``Path.rglob`` and ``shutil.rmtree`` recurse once per level (and ``rmtree`` holds a file
descriptor per level), so such a tree stops the grader with ``RecursionError`` or ``EMFILE``. Every walk
of a tree a student shaped goes through ``walk`` here (a loop over an explicit stack, a depth bound and an
optional entry budget, links never followed), and every removal through ``remove_tree`` (a loop that holds
one folder open at a time, whatever the depth).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

# Deeper than any real upload or scratch folder; a notebook's own files sit at depth 1 or 2.
MAX_DEPTH = 64
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class Entry(NamedTuple):
    path: str  # the root joined with the names on the way
    info: os.stat_result  # lstat: a link is a link
    depth: int  # 1 for an entry directly in a root


class Walk:
    """Every entry under ``roots`` (their own entries first, then each folder's, in name order), links
    never followed, a vanishing entry or an unreadable folder skipped.

    A folder is entered only where ``enter(path, lstat)`` allows (default: always) and its depth is under
    ``max_depth``; a folder left out for depth is listed in ``too_deep`` (the caller says so in its own
    words). Iteration stops after ``max_entries`` entries and sets ``cut``. Iterative: the grader's stack
    does not grow with the tree."""

    def __init__(
        self,
        roots: Iterable,
        *,
        max_depth: int = MAX_DEPTH,
        enter: Callable[[str, os.stat_result], bool] | None = None,
        max_entries: int | None = None,
    ):
        self.roots = [os.fspath(root) for root in roots]
        self.max_depth = max_depth
        self.enter = enter
        self.max_entries = max_entries
        self.too_deep: list[str] = []
        self.cut = False

    def __iter__(self) -> Iterator[Entry]:
        stack = [(root, 0) for root in reversed(self.roots)]
        seen = 0
        while stack:
            folder, depth = stack.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
            except OSError:
                continue
            below = []
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if self.max_entries is not None and seen >= self.max_entries:
                    self.cut = True
                    return
                seen += 1
                yield Entry(entry.path, info, depth + 1)
                if stat.S_ISDIR(info.st_mode) and (self.enter is None or self.enter(entry.path, info)):
                    if depth + 1 >= self.max_depth:
                        self.too_deep.append(entry.path)
                    else:
                        below.append(entry.path)
            stack.extend((path, depth + 1) for path in reversed(below))


def walk(roots: Iterable, **bounds) -> Walk:
    """``Walk(roots, **bounds)``: iterate it; read ``too_deep`` and ``cut`` afterwards."""
    return Walk(roots, **bounds)


class TreeChanged(OSError):
    """A folder was moved while ``remove_tree`` worked in it; it stopped rather than guess where it was."""


def _listing(fd: int) -> tuple[list[str], list[str]]:
    folders, others = [], []
    with os.scandir(fd) as listing:
        for entry in listing:
            try:
                (folders if entry.is_dir(follow_symlinks=False) else others).append(entry.name)
            except OSError:
                others.append(entry.name)
    return folders, others


def remove_tree(path, max_entries: int | None = None) -> int:
    """Remove ``path`` (a file, a link, or a folder and everything in it) without following any link and
    without recursion; return how many entries went. Holds one folder open at a time: it climbs back
    through ``..`` and checks it reached the folder it came from (device and inode), so a tree moved
    under it raises ``TreeChanged`` instead of removing elsewhere. ``max_entries`` stops it early with
    ``OSError`` (a budget; what is left stays). A missing ``path`` is no error."""
    path = os.fspath(path)
    try:
        fd = os.open(path, _DIR_FLAGS)
    except FileNotFoundError:
        return 0
    except OSError:  # a file, a link (ELOOP) or something else that is no folder
        try:
            os.unlink(path)
        except FileNotFoundError:
            return 0
        return 1
    removed = 0
    # one frame per folder on the way down: (its name in its parent, (st_dev, st_ino), folders left in it)
    frames: list[tuple[str, tuple[int, int], list[str]]] = []
    try:

        def arrive(name: str) -> None:
            nonlocal removed
            info = os.fstat(fd)
            folders, others = _listing(fd)
            for other in others:
                try:
                    os.unlink(other, dir_fd=fd)
                except FileNotFoundError:
                    continue
                except IsADirectoryError:  # became a folder since the listing: take it as one
                    folders.append(other)
                    continue
                removed += 1
                if max_entries is not None and removed > max_entries:
                    raise OSError(f"more than {max_entries} entries under {path}; the rest was left")
            frames.append((name, (info.st_dev, info.st_ino), folders))

        arrive("")
        while frames:
            name, ident, folders = frames[-1]
            if folders:
                child_name = folders.pop()
                try:
                    child = os.open(child_name, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    continue
                except OSError:  # no longer a folder (a link or a file swapped in): remove the entry itself
                    try:
                        os.unlink(child_name, dir_fd=fd)
                        removed += 1
                    except FileNotFoundError:
                        pass
                    continue
                os.close(fd)
                fd = child
                arrive(child_name)
                continue
            frames.pop()
            if not frames:
                break
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            info = os.fstat(fd)
            if (info.st_dev, info.st_ino) != frames[-1][1]:
                raise TreeChanged(f"a folder under {path} was moved while it was being removed")
            try:
                os.rmdir(name, dir_fd=fd)
                removed += 1
            except FileNotFoundError:
                pass
    finally:
        os.close(fd)
    os.rmdir(path)
    return removed + 1


def remove_quietly(path) -> str | None:
    """``remove_tree(path)``, an error returned as a short reason instead of raised (None when it went):
    for clean-ups that must not stop what comes after them."""
    try:
        remove_tree(path)
    except OSError as error:
        return f"{type(error).__name__}: {error}"
    return None


__all__ = ["MAX_DEPTH", "Entry", "Walk", "walk", "TreeChanged", "remove_tree", "remove_quietly"]
