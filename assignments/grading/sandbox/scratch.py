"""The sandboxed kernel's scratch folder, touched by the grader without ever following a link.

The kernel owns scratch and may leave links, folders or fifos at any name the grader later uses, so every
write creates a new file with ``O_EXCL | O_NOFOLLOW`` after removing (not following) what is there, and
every size is measured without following links.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import sysconfig
from pathlib import Path


def remove_entry(path: Path) -> None:
    """Remove a file, link or folder the kernel may have put at ``path``, never following a link."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path)  # rmtree works on file descriptors and does not follow links inside
    else:
        os.unlink(path)


def write_new_file(path: Path, data: bytes, owner, mode: int) -> None:
    """Create ``path`` (it must not exist: O_EXCL also refuses a link) and write ``data`` to it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    with os.fdopen(fd, "wb") as handle:
        if owner:
            os.fchown(handle.fileno(), *owner)
        os.fchmod(handle.fileno(), mode)
        handle.write(data)


def walk(roots, enter=lambda info: True):
    """Every entry under ``roots`` as (its path, its ``lstat``), links not followed, a vanishing entry or an
    unreadable folder skipped; a folder's contents only where ``enter(its lstat)`` allows. Iterative, so a
    student's deep tree cannot exhaust the grader's stack."""
    stack = [str(root) for root in roots]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            yield entry.path, info
            if stat.S_ISDIR(info.st_mode) and enter(info):
                stack.append(entry.path)


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


def remove_owned(uid: int, roots=SHARED_TMP, skip=()) -> int:
    """Remove everything owned by ``uid`` under ``roots`` (never following a link, never entering
    ``skip``); return how many entries went. Where no other uid can be the owner (a sandbox's own uid),
    this is exactly what that sandbox left behind, wherever it hid it."""
    removed, skip = 0, {os.path.realpath(p) for p in skip}
    for root in roots:
        for folder, subfolders, files in os.walk(root, followlinks=False):
            subfolders[:] = [d for d in subfolders if os.path.join(folder, d) not in skip]
            for name in list(subfolders) + files:
                path = os.path.join(folder, name)
                try:
                    if os.lstat(path).st_uid != uid:
                        continue
                    remove_entry(Path(path))
                except OSError:
                    continue
                removed += 1
                if name in subfolders:
                    subfolders.remove(name)
    return removed


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
