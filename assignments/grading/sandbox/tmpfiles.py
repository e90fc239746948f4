"""What a sandboxed kernel keeps in temporary folders, measured for its memory limit.

A tmpfs holds its files in memory, yet no process's resident memory counts them and ``RLIMIT_AS`` does
not see them; where there is no cgroup to charge them, the memory watchdog adds them to the resident
memory of the kernel's processes itself (``process.KernelProcess``), by one of two measures:

- **with a mount namespace** the kernel's ``/tmp``, ``/var/tmp`` and ``/dev/shm`` are one private tmpfs
  (``programs/launch.py``), and its used blocks are exactly the kernel's files there, named or deleted:
  ``private_tmpfs_bytes`` reads them through the launcher's ``/proc/<pid>/root``.
- **without one** (the fallback) those folders are the host's, shared with every other process, and the
  kernel's own uid is what tells its files apart: ``shared_tmp_usage`` adds what that uid owns there to
  the deleted files there that the kernel's processes still hold open or mapped. Not seen: a deleted file
  held only by a descriptor in flight on a Unix socket, and the unmapped part of a deleted file held only
  by a mapping where ``/proc/<pid>/map_files`` is closed to the grader (it needs ``CAP_SYS_ADMIN``, which
  a default Docker container's root lacks); both end with the kernel's processes.
"""

from __future__ import annotations

import os
import stat

from assignments.grading.sandbox.scratch import SHARED_TMP, walk


def private_tmpfs_bytes(launcher_pid: int, path: str) -> int:
    """Bytes in use in the file system mounted at ``path`` in the mount namespace of ``launcher_pid``;
    0 once the launcher is gone."""
    try:
        info = os.statvfs(f"/proc/{launcher_pid}/root{path}")
    except OSError:
        return 0
    return (info.f_blocks - info.f_bfree) * info.f_frsize


def owned_files(uid: int, roots=SHARED_TMP, max_entries: int | None = None) -> dict[tuple[int, int], int]:
    """(device, inode) -> bytes allocated, for every entry ``uid`` owns under ``roots``, links not followed.
    Only folders ``uid`` could have written into are entered (its own, and those every uid may write);
    it cannot have created anything elsewhere, so a crowded ``/tmp`` costs a listing of its top level.
    Counting stops once ``uid`` owns more than ``max_entries``: the caller only needs to know that."""
    found = {}
    may_write = lambda info: info.st_uid == uid or info.st_mode & stat.S_IWOTH
    for _, info in walk([root for root in roots if os.path.isdir(root)], enter=may_write):
        if info.st_uid == uid:
            found[(info.st_dev, info.st_ino)] = info.st_blocks * 512
            if max_entries is not None and len(found) > max_entries:
                break
    return found


def _mapped_deleted(pid: int, devices: set[int]) -> dict[tuple[int, int], int]:
    """Deleted files on ``devices`` that ``pid`` maps: their size where ``map_files`` lets the grader stat
    them, else the length of the mapping."""
    try:
        with open(f"/proc/{pid}/maps") as maps:
            text = maps.read()
    except OSError:
        return {}
    found = {}
    for line in text.splitlines() if " (deleted)" in text else []:
        fields = line.split(maxsplit=5)
        if len(fields) < 6 or not fields[5].endswith(" (deleted)"):
            continue
        major, _, minor = fields[3].partition(":")
        key = (os.makedev(int(major, 16), int(minor, 16)), int(fields[4]))
        if key[0] not in devices:
            continue
        start, _, end = fields[0].partition("-")
        try:
            size = os.stat(f"/proc/{pid}/map_files/{fields[0]}").st_blocks * 512
        except OSError:
            size = int(end, 16) - int(start, 16)
        found[key] = max(found.get(key, 0), size)
    return found


def held_deleted(pids, devices: set[int]) -> dict[tuple[int, int], int]:
    """(device, inode) -> bytes for the deleted regular files on ``devices`` that the processes ``pids``
    hold open or mapped."""
    found = {}
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                info = os.stat(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_nlink == 0 and info.st_dev in devices:
                found[(info.st_dev, info.st_ino)] = info.st_blocks * 512
        for key, size in _mapped_deleted(pid, devices).items():
            found.setdefault(key, size)
    return found


def shared_tmp_usage(uid: int, pids, roots=SHARED_TMP, max_entries: int | None = None) -> tuple[int, int]:
    """(bytes, entries) the kernel of ``uid`` (a sandbox's own) holds in the host's shared temporary
    folders: its files and folders there and the deleted files its processes ``pids`` still hold, each
    counted once (entries only up to just past ``max_entries``, as ``owned_files``)."""
    devices = set()
    for root in roots:
        try:
            devices.add(os.stat(root).st_dev)
        except OSError:
            continue
    files = owned_files(uid, roots, max_entries)
    files.update(held_deleted(pids, devices))
    return sum(files.values()), len(files)


__all__ = ["private_tmpfs_bytes", "shared_tmp_usage", "owned_files", "held_deleted"]
