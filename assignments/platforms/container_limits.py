"""A command under a container's limits: a control group of its own with a CPU quota and a memory limit like
a container's, and the group's peak memory. Linux and root only; ``unavailable()`` says why not elsewhere.
Used by ``course prairielearn --quota`` (a job under PrairieLearn's limits) and by the benchmarks.

    with Cgroup(cpu=0.5, memory_mb=768) as group:
        process = group.popen(["python", "grade.py"])
        process.wait()
        print(group.peak_bytes(), group.oom_kills())

The limits are the kernel's own, the ones Docker sets for ``--cpus`` and ``--memory`` (and so the ones a
Gradescope container runs under): CFS bandwidth control (a quota of CPU time per 100 ms period, for the
whole group, however many processes it holds) and the memory controller (the OOM killer acts inside the
group when it is full and nothing can be reclaimed).

- **cgroup v2** (one unified hierarchy, ``/sys/fs/cgroup/cgroup.controllers`` exists): a child of the root
  cgroup (the one group exempt from v2's rule that only leaves hold processes, so no delegation or
  systemd scope is needed), ``cpu.max``, ``memory.max``, ``memory.peak`` (Linux 5.19 or later).
- **cgroup v1** (one hierarchy per controller, as on this machine, whose PID 1 is not systemd, so
  ``systemd-run`` cannot make a scope): a child of this process's own ``cpu``, ``cpuacct`` and ``memory``
  groups, ``cpu.cfs_quota_us`` over ``cpu.cfs_period_us``, ``memory.limit_in_bytes``,
  ``memory.max_usage_in_bytes``, ``cpuacct.usage``.

Both also give the group's CPU time (every process in it, including ones already gone) and how many
quota periods it was throttled in, which shows the quota at work.

A group's memory counts every page its processes touch once, however many of them map it: anonymous
memory plus the page cache it brought in (shared libraries read by another group first are charged
there). Under a limit, page cache is reclaimed before anything is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PERIOD_US = 100_000  # CFS period; the quota is a share of it (Docker uses the same period)


def version() -> int | None:
    """2 for a unified hierarchy, 1 for per-controller hierarchies with cpu and memory, else None."""
    if (ROOT / "cgroup.controllers").is_file():
        return 2
    if all(
        (ROOT / controller / name).is_file()
        for controller, name in (
            ("cpu", "cpu.cfs_quota_us"),
            ("cpuacct", "cpuacct.usage"),
            ("memory", "memory.limit_in_bytes"),
        )
    ):
        return 1
    return None


def unavailable() -> str | None:
    """Why a group cannot be made here, or None when it can."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "making a cgroup needs root"
    kind = version()
    if kind is None:
        return f"no cgroup v2 hierarchy and no cgroup v1 cpu, cpuacct and memory controllers under {ROOT}"
    if kind == 2:
        enabled = (ROOT / "cgroup.subtree_control").read_text().split()
        missing = {"cpu", "memory"} - set(enabled)
        if missing:
            return f"the root cgroup does not enable {', '.join(sorted(missing))} for its children"
    return None


def _own_group(controller: str) -> str:
    """This process's group in a v1 controller's hierarchy (from /proc/self/cgroup)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path
    return "/"


class Cgroup:
    """A fresh group (removed on exit) with optional CPU quota (in CPUs) and memory limit (in MB)."""

    def __init__(self, cpu: float | None = None, memory_mb: int | None = None, name: str = "course-bench"):
        why = unavailable()
        if why:
            raise RuntimeError(why)
        self.version = version()
        leaf = f"{name}-{os.getpid()}-{time.monotonic_ns()}"
        if self.version == 2:
            self.dirs = dict.fromkeys(("cpu", "cpuacct", "memory"), ROOT / leaf)
        else:
            self.dirs = {c: ROOT / c / _own_group(c).lstrip("/") / leaf for c in ("cpu", "cpuacct", "memory")}
        self.cpu, self.memory_mb = cpu, memory_mb

    def __enter__(self) -> Cgroup:
        for folder in set(self.dirs.values()):
            folder.mkdir()
        if self.version == 2:
            folder = self.dirs["cpu"]
            if self.cpu:
                (folder / "cpu.max").write_text(f"{int(self.cpu * PERIOD_US)} {PERIOD_US}")
            if self.memory_mb:
                (folder / "memory.max").write_text(str(self.memory_mb * 2**20))
                if (folder / "memory.swap.max").exists():  # no swap: the fit is measured in memory alone
                    (folder / "memory.swap.max").write_text("0")
        else:
            if self.cpu:
                (self.dirs["cpu"] / "cpu.cfs_period_us").write_text(str(PERIOD_US))
                (self.dirs["cpu"] / "cpu.cfs_quota_us").write_text(str(int(self.cpu * PERIOD_US)))
            if self.memory_mb:
                (self.dirs["memory"] / "memory.limit_in_bytes").write_text(str(self.memory_mb * 2**20))
        return self

    def __exit__(self, *exc) -> None:
        self.kill()
        for folder in set(self.dirs.values()):
            for _ in range(50):  # a killed process leaves its group only once it has been reaped
                try:
                    folder.rmdir()
                    break
                except OSError:
                    time.sleep(0.1)

    def popen(self, argv: list[str], **kwargs) -> subprocess.Popen:
        """Start ``argv`` inside the group: a shell moves itself in, then execs the command, so every
        process the command starts (the grader's kernel included) is in the group from its first step."""
        procs = " ".join(str(d / "cgroup.procs") for d in sorted(set(self.dirs.values())))
        script = f'for f in {procs}; do echo $$ > "$f" || exit 97; done; exec "$@"'
        return subprocess.Popen(["/bin/sh", "-c", script, "sh", *argv], **kwargs)

    def pids(self) -> list[int]:
        """Every process in the group, its sub-groups included: the sandbox puts each kernel in a cgroup of
        its own below its grader's (grading/sandbox/cgroups.py), and a kernel missed would halve the figure."""
        found = []
        for procs in sorted(self.dirs["memory"].rglob("cgroup.procs")):
            try:
                found += [int(p) for p in procs.read_text().split()]
            except (OSError, ValueError):
                continue  # a kernel's group removed while it was read
        return found

    def peak_bytes(self) -> int:
        """Most memory the group has held at once since it was made."""
        folder = self.dirs["memory"]
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        try:
            return int((folder / name).read_text())
        except (OSError, ValueError):
            return 0

    def cpu_seconds(self) -> float:
        """CPU time used by every process that has been in the group."""
        if self.version == 2:
            return self._stat("cpu", "cpu.stat").get("usage_usec", 0) / 1e6
        try:
            return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return 0.0

    def throttling(self) -> tuple[int, int]:
        """(quota periods in which the group ran, periods in which it ran out of quota)."""
        stat = self._stat("cpu", "cpu.stat")
        return stat.get("nr_periods", 0), stat.get("nr_throttled", 0)

    def _stat(self, controller: str, name: str) -> dict[str, int]:
        try:
            lines = (self.dirs[controller] / name).read_text().splitlines()
        except OSError:
            return {}
        return {key: int(value) for key, _, value in (line.partition(" ") for line in lines) if value.isdigit()}

    def oom_kills(self) -> int:
        """Processes the OOM killer ended inside the group."""
        return self._stat("memory", "memory.events" if self.version == 2 else "memory.oom_control").get("oom_kill", 0)

    def kill(self) -> None:
        for _ in range(20):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.1)

    def describe(self) -> str:
        cpu = f"{self.cpu:g} CPU" if self.cpu else "no CPU quota"
        memory = f"{self.memory_mb} MB" if self.memory_mb else "no memory limit"
        how = (
            "cgroup v2 cpu.max / memory.max"
            if self.version == 2
            else "cgroup v1 cpu.cfs_quota_us over a 100 ms period / memory.limit_in_bytes"
        )
        return f"{cpu}, {memory} ({how})"
