"""The sandboxed kernel's scratch folder, touched by the grader without ever following a link.

The kernel owns scratch and may leave links, folders or fifos at any name the grader later uses, so every
write creates a new file with ``O_EXCL | O_NOFOLLOW`` after removing (not following) what is there, and
every size is measured without following links.
"""

from __future__ import annotations

import os
import stat
import sys
import sysconfig
from pathlib import Path

from assignments import trees


def remove_entry(path: Path) -> None:
    """Remove a file, link or folder the kernel may have put at ``path``, never following a link."""
    trees.remove_tree(path)  # iterative, on file descriptors, never following a link inside


def write_new_file(path: Path, data: bytes, owner, mode: int) -> None:
    """Create ``path`` (it must not exist: O_EXCL also refuses a link) and write ``data`` to it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    with os.fdopen(fd, "wb") as handle:
        if owner:
            os.fchown(handle.fileno(), *owner)
        os.fchmod(handle.fileno(), mode)
        handle.write(data)


def walk(roots, enter=lambda info: True, max_depth: int | None = None, max_entries: int | None = None):
    """Every entry under ``roots`` as (its path, its ``lstat``), links not followed, a vanishing entry or an
    unreadable folder skipped; a folder's contents only where ``enter(its lstat)`` allows and it lies
    less than ``max_depth`` deep (unbounded when None: a measure must see everything it can). Iterative
    (``trees.walk``), so a student's deep tree cannot exhaust the grader's stack."""
    depth = max_depth if max_depth is not None else sys.maxsize
    for entry in trees.walk(roots, max_depth=depth, enter=lambda _, info: enter(info), max_entries=max_entries):
        yield entry.path, entry.info


def tree_usage(root: Path, max_entries: int | None = None) -> tuple[int, int]:
    """(bytes allocated, entries) under ``root``. Counting stops once there are more than ``max_entries``:
    the caller only needs to know that (and 200,000 empty files would otherwise make every look cost more
    than the last)."""
    total, count = 0, 0
    for _, info in walk([root]):
        total += info.st_blocks * 512
        count += 1
        if max_entries is not None and count > max_entries:
            break
    return total, count


# World-writable folders a kernel without a mount namespace can leave files in for a later kernel.
SHARED_TMP = ("/tmp", "/var/tmp", "/dev/shm")


# How far the sweep looks for a uid's leftovers through folders others own (its own are removed whole,
# however deep), and how many entries it looks at: a crowded or hostile /tmp costs bounded work.
SWEEP_DEPTH = 32
SWEEP_ENTRIES = 200_000


def remove_owned(uid: int, roots=SHARED_TMP, skip=()) -> tuple[int, list[str]]:
    """Remove everything owned by ``uid`` under ``roots`` (never following a link, never entering
    ``skip``); return (how many entries went, problems in the grader's words). Where no other uid can be
    the owner (a sandbox's own uid), this is exactly what that sandbox left behind, wherever it hid it.

    Scoped to what ``uid`` could have made: it enters only folders of other owners that ``uid`` may write
    into (``/tmp`` and the like: writable by every uid, or by its group), up to ``SWEEP_DEPTH`` deep and
    ``SWEEP_ENTRIES`` entries; a folder ``uid`` owns is removed whole, without a depth limit
    (``trees.remove_tree``). Nothing here raises: what could not be swept is a problem the caller reports."""
    removed, problems, skip = 0, [], {os.path.realpath(p) for p in skip}

    def may_hold_leftovers(path: str, info: os.stat_result) -> bool:
        # the sandbox's group is its uid (process.drop_user): a folder that group may write counts too
        writable = info.st_mode & stat.S_IWOTH or (info.st_gid == uid and info.st_mode & stat.S_IWGRP)
        return info.st_uid != uid and bool(writable) and path not in skip

    sweep = trees.walk(
        [root for root in roots if os.path.isdir(root) and os.path.realpath(root) not in skip],
        max_depth=SWEEP_DEPTH,
        enter=may_hold_leftovers,
        max_entries=SWEEP_ENTRIES,
    )
    try:
        for entry in sweep:
            if entry.info.st_uid != uid or entry.path in skip:
                continue
            try:
                trees.remove_tree(entry.path)
            except OSError as error:
                problems.append(
                    f"{entry.path} could not be removed ({type(error).__name__}: {error.strerror or error})"
                )
                continue
            removed += 1
    except OSError as error:  # the walk itself skips what it cannot read; this is a last resort
        problems.append(f"the sweep stopped ({type(error).__name__})")
    if sweep.too_deep:
        problems.append(
            f"{len(sweep.too_deep)} shared folder(s) more than {SWEEP_DEPTH} levels deep were not looked in"
        )
    if sweep.cut:
        problems.append(f"the sweep stopped after {SWEEP_ENTRIES} entries")
    return removed, problems


def python_roots() -> list[str]:
    """Folders the kernel's Python needs (bound back into its mount namespace): the venv, the base
    installation, their site-packages."""
    roots = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        str(Path(os.path.realpath(sys.executable)).parent.parent),
    }
    for key in ("purelib", "platlib", "stdlib", "platstdlib"):
        roots.add(sysconfig.get_paths().get(key, sys.prefix))
    return sorted(r for r in roots if r and os.path.isdir(r) and r != "/")
