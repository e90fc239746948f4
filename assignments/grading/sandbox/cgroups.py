"""A cgroup of its own for each sandboxed kernel, where the host lets the grader make one.

Without one, a sandbox is held by per-process and per-uid tools: the scheduler gives it one share only
where it schedules by session (autogroup), ``RLIMIT_NPROC`` counts processes only when its kernel has a
uid of its own, the memory watchdog samples RSS every 50 ms (a fast allocator overshoots it), and the
CPU time it has used is summed over the processes the watchdog saw in its tree (one that leaves the tree
or lives less than a sample is missed). A cgroup gives each of these exactly: an equal CPU weight for the
whole sandbox however many processes it starts, ``pids.max``, a hard memory cap (above the watchdog's,
which still stops the usual blow-up first with its own message), the CPU time of every process the
kernel ever ran, and the list of every process to kill at teardown.

Where: cgroup v1 hierarchies with the ``cpu``, ``cpuacct``, ``pids`` and ``memory`` controllers (each
mounted alone or together; what is mounted is used), or else the unified v2 hierarchy, with whichever of
those controllers the grader's own cgroup already passes down (its ``cgroup.subtree_control``; the grader
never changes it, which on v2 would mean moving itself out of its cgroup first). Every v2 cgroup keeps
CPU accounting and ``cgroup.kill``, controllers or not. The sandbox's cgroup is made below the grader's
own in each hierarchy, so any limit the host put on the grader still holds for its kernels. It needs
root, or a subtree delegated to the grader; each step the host refuses is left out, and where nothing can
be made ``SandboxCgroup.create`` returns None and the sandbox runs as before, with no finding (the
per-uid and watchdog limits hold; the record's ``kernel_cgroup`` timing says which way it ran).

The launcher writes its own pid into every ``cgroup.procs`` before it forks anything, so every process of
the sandbox starts inside; the kernel cannot leave (the files are root's and its uid has no capabilities).
A cgroup is named after the grader process that made it, so one left by a grader that was killed (the
batch's budget) is emptied and removed by the next sandbox made beside it.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

CONTROLLERS = ("cpu", "cpuacct", "pids", "memory")
# Set to "1" to make no cgroup where the host would give one: the sandbox then runs as on a host that
# delegates none (a default Docker container, Gradescope), which the tests of that mode need to reach.
NO_CGROUP_ENV = "COURSE_SANDBOX_NO_CGROUP"
PREFIX = "course-sandbox-"
CPU_SHARES = 1024  # v1: the default weight of every cgroup and autogroup, so a sandbox is one equal share
CPU_WEIGHT = 100  # v2: the same, on cgroup v2's scale


@dataclass(frozen=True)
class Hierarchy:
    """One mounted cgroup hierarchy: where it is mounted, and the grader's own cgroup in it."""

    version: int
    mount: Path
    own: Path  # the grader's cgroup, as a folder under ``mount``
    controllers: frozenset


def _mountinfo() -> list[tuple[str, str, str, set]]:
    """(mount point, root inside the file system, type, super options) of every cgroup mount."""
    found = []
    try:
        with open("/proc/self/mountinfo") as info:
            lines = info.read().splitlines()
    except OSError:
        return []
    for line in lines:
        head, _, tail = line.partition(" - ")
        fields, rest = head.split(), tail.split()
        if len(fields) >= 5 and len(rest) >= 3 and rest[0] in ("cgroup", "cgroup2"):
            point = fields[4].replace("\\040", " ")
            found.append((point, fields[3], rest[0], set(rest[2].split(","))))
    return found


def _own_paths() -> dict[str, str]:
    """The grader's cgroup per controller (v1) and under "" (v2), from /proc/self/cgroup."""
    paths = {}
    try:
        with open("/proc/self/cgroup") as own:
            lines = own.read().splitlines()
    except OSError:
        return {}
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    return paths


def _below(mount: str, root: str, path: str) -> Path | None:
    """``path`` (as /proc/self/cgroup names it) as a folder under ``mount`` (whose root is ``root``)."""
    root = root.rstrip("/")
    if path != root and not path.startswith(root + "/"):
        return None  # the grader's cgroup is outside what this mount shows
    return Path(mount + path[len(root) :]) if path[len(root) :] else Path(mount)


def discover() -> list[Hierarchy]:
    """Every cgroup hierarchy mounted here that holds a controller we use (v1) or is unified (v2)."""
    own = _own_paths()
    found, seen = [], set()
    for point, root, kind, options in _mountinfo():
        if kind == "cgroup":
            controllers = frozenset(options & set(CONTROLLERS))
            key = controllers
            path = own.get(next(iter(controllers)), None) if controllers else None
            version = 1
        else:
            controllers, key, path, version = frozenset(), "v2", own.get(""), 2
        if not path or key in seen or not (controllers or version == 2):
            continue
        folder = _below(point, root, path)
        if folder is not None and folder.is_dir():
            seen.add(key)
            found.append(Hierarchy(version, Path(point), folder, controllers))
    return found


def preferred(hierarchies: list[Hierarchy]) -> list[Hierarchy]:
    """The v1 hierarchies where any are mounted (a hybrid host keeps its controllers there), else v2."""
    v1 = [h for h in hierarchies if h.version == 1]
    return v1 or [h for h in hierarchies if h.version == 2][:1]


def _write(path: Path, text: str) -> bool:
    try:
        with open(path, "w") as handle:
            handle.write(text)
        return True
    except OSError:
        return False


def _read(path: Path) -> str:
    try:
        with open(path) as handle:
            return handle.read()
    except OSError:
        return ""


def _keyed(text: str, key: str) -> int:
    """The number after ``key`` in a "key value" file (cpu.stat, memory.events, memory.oom_control)."""
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


def _pids(folder: Path) -> list[int]:
    return [int(p) for p in _read(folder / "cgroup.procs").split() if p.isdigit()]


def _owner_alive(name: str) -> bool:
    """Whether the grader process named in a sandbox cgroup's name is still running."""
    pid = name[len(PREFIX) :].split("-", 1)[0]
    return not pid.isdigit() or os.path.exists(f"/proc/{pid}")


@dataclass
class SandboxCgroup:
    """One sandbox's cgroup: a folder per hierarchy, all of the same name."""

    version: int
    folders: dict = field(default_factory=dict)  # controller ("" for v2's core files) -> folder

    @classmethod
    def create(cls, pids_max: int, memory_max: int) -> SandboxCgroup | None:
        """A fresh cgroup in this host's preferred hierarchies, with its limits set, or None."""
        if os.environ.get(NO_CGROUP_ENV, "") == "1":
            return None
        return cls.make(preferred(discover()), pids_max, memory_max)

    @classmethod
    def make(cls, hierarchies: list[Hierarchy], pids_max: int, memory_max: int) -> SandboxCgroup | None:
        name = f"{PREFIX}{os.getpid()}-{secrets.token_hex(6)}"
        made = cls(hierarchies[0].version if hierarchies else 1)
        for hierarchy in hierarchies:
            sweep(hierarchy.own)
            folder = hierarchy.own / name
            try:
                folder.mkdir()
            except OSError:
                continue
            for controller in hierarchy.controllers or [""]:
                made.folders[controller] = folder
            if hierarchy.version == 2:
                made.folders.update(
                    {
                        c: folder
                        for c in ("cpu", "pids", "memory")
                        if (folder / f"{c}.max").exists() or (folder / f"{c}.weight").exists()
                    }
                )
        if not made.folders:
            return None
        made._limit(pids_max, memory_max)
        return made

    def _limit(self, pids_max: int, memory_max: int) -> None:
        v1 = self.version == 1
        settings = (
            ("cpu", "cpu.shares" if v1 else "cpu.weight", CPU_SHARES if v1 else CPU_WEIGHT),
            ("pids", "pids.max", pids_max),
            ("memory", "memory.limit_in_bytes" if v1 else "memory.max", memory_max),
        )
        for controller, filename, value in settings:
            if controller in self.folders:
                _write(self.folders[controller] / filename, str(value))

    @property
    def unique_folders(self) -> list[Path]:
        return sorted(set(self.folders.values()))

    def procs_files(self) -> list[str]:
        """The files the launcher writes its pid into."""
        return [str(folder / "cgroup.procs") for folder in self.unique_folders]

    def controllers(self) -> list[str]:
        return sorted(c for c in self.folders if c)

    def describe(self) -> str:
        return f"cgroup v{self.version} ({', '.join(self.controllers()) or 'accounting only'})"

    def cpu_seconds(self) -> float | None:
        """User + system CPU time of every process that ever ran in the cgroup; None where not counted."""
        if self.version == 1 and "cpuacct" in self.folders:
            usage = _read(self.folders["cpuacct"] / "cpuacct.usage").strip()
            return int(usage) / 1e9 if usage.isdigit() else None
        if self.version == 2:
            folder = self.unique_folders[0]
            text = _read(folder / "cpu.stat")
            return _keyed(text, "usage_usec") / 1e6 if text else None
        return None

    def oom_kills(self) -> int:
        """Processes the kernel's OOM killer ended in this cgroup (its memory cap)."""
        if "memory" not in self.folders:
            return 0
        folder = self.folders["memory"]
        if self.version == 1:
            return _keyed(_read(folder / "memory.oom_control"), "oom_kill")
        return _keyed(_read(folder / "memory.events"), "oom_kill")

    def pids(self) -> set[int]:
        return {pid for folder in self.unique_folders for pid in _pids(folder)}

    def remove(self) -> None:
        """Kill every process still in the cgroup, then remove its folders; safe to call twice."""
        for folder in self.unique_folders:
            _empty_and_remove(folder)
        self.folders = {}


def _empty_and_remove(folder: Path, patience: float = 5.0) -> None:
    """SIGKILL whatever is in ``folder`` (again, for what a dying process forks) until it can go."""
    end = time.monotonic() + patience
    while True:
        if not _write(folder / "cgroup.kill", "1"):
            for pid in _pids(folder):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > end:
                return
            time.sleep(0.02)


def stale(parent: Path) -> list[Path]:
    """The sandbox cgroups under ``parent`` whose grader process is gone (killed before its teardown)."""
    try:
        entries = [entry for entry in os.scandir(parent) if entry.name.startswith(PREFIX) and entry.is_dir()]
    except OSError:
        return []
    return [parent / entry.name for entry in entries if not _owner_alive(entry.name)]


def sweep(parent: Path) -> None:
    """Empty and remove ``stale(parent)``."""
    for folder in stale(parent):
        _empty_and_remove(folder, patience=1.0)


def sweep_dead() -> None:
    """``sweep`` wherever this process would make a sandbox's cgroup (the batch, when it ends)."""
    for hierarchy in preferred(discover()):
        sweep(hierarchy.own)


__all__ = ["SandboxCgroup", "Hierarchy", "NO_CGROUP_ENV", "discover", "preferred", "stale", "sweep", "sweep_dead"]
