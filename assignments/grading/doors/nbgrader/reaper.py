"""Run one command so that nothing it starts outlives it, within a deadline (Linux).

``nbgrader autograde`` runs the student's code in a Jupyter kernel it starts. A process that code starts
can detach (double fork, ``setsid``) and survive the kernel: it could then write the gradebook after the
grade was read, or keep nbgrader's output pipes open so the caller waits for EOF forever. This process
marks itself a child subreaper (``PR_SET_CHILD_SUBREAPER``), so every orphan below it is re-parented to
it instead of to init, runs the command, and when the command ends (or the deadline passes) kills every
process still below it. Usage::

    python -m assignments.grading.doors.nbgrader.reaper DEADLINE_SECONDS COMMAND [ARG ...]

Exit status: the command's, or 124 when the deadline ended it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>
DEADLINE_EXIT = 124  # what timeout(1) returns


def become_subreaper() -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def _parents() -> dict[int, int]:
    """pid -> parent pid of every live (non-zombie) process visible in /proc."""
    parents = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
                fields = stat.read().rpartition(")")[2].split()
        except OSError:
            continue
        if fields and fields[0] != "Z":
            parents[int(name)] = int(fields[1])
    return parents


def descendants(pid: int) -> list[int]:
    parents = _parents()
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_descendants(grace_s: float = 5.0) -> list[int]:
    """SIGKILL everything below this process until nothing is left (a forking process may add more
    between one scan and the kill, hence the loop); returns the pids killed."""
    killed, until = [], time.monotonic() + grace_s
    while time.monotonic() < until:
        _reap()
        alive = descendants(os.getpid())
        if not alive:
            break
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    _reap()
    return killed


def run(deadline_s: float, command: list[str]) -> int:
    if not become_subreaper():
        print("[reaper] PR_SET_CHILD_SUBREAPER failed; detached processes may survive", file=sys.stderr)
    child = subprocess.Popen(command)
    try:
        status = child.wait(timeout=deadline_s)
    except subprocess.TimeoutExpired:
        print(f"[reaper] the command ran past its {deadline_s:g} s deadline and was killed", file=sys.stderr)
        status = DEADLINE_EXIT
    finally:
        stray = [pid for pid in kill_descendants() if pid != child.pid]
    if stray:
        print(f"[reaper] killed {len(stray)} process(es) left behind: {sorted(set(stray))}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(run(float(sys.argv[1]), sys.argv[2:]))
