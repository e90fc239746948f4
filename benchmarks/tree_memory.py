"""Peak memory of a group of processes (the grader and its kernel's tree), sampled from /proc.

Four sums over the processes alive at each sample (from ``/proc/<pid>/smaps``), each with its own peak:

- **RSS**: resident pages of each process. Pages that several processes map (torch's shared libraries in
  both the grader and the kernel) are counted once per process, so the sum overstates the footprint.
- **PSS** (proportional set size, ``/proc/<pid>/smaps_rollup``): each shared page split between the
  processes that map it, so the sum counts every page once: the group's real resident footprint.
- **anonymous**: heap, stacks and tensors; memory that cannot be dropped and re-read from a file, so the
  part a memory limit cannot reclaim (there is no swap on the grading machines). Summed as each process's
  proportional share (``Pss_Anon``): a page a forked process still shares with its parent (a kernel
  forked from the grader's zygote shares torch's pages with the grader) counts once, as in the container.
  Only processes of one family share anonymous pages, so the sum over the group is exact.
- **unique**: anonymous memory plus, for each file mapped (shared libraries, mostly torch's), the most
  of it resident in any one process: every page counted once, whoever else on the machine maps it. This
  is what a fresh container holds; PSS is lower when processes outside the group share the libraries,
  and a cgroup's peak (``container_limits.Cgroup``) is lower when another group read those libraries first (their
  pages are charged there).

Sampling misses what lives shorter than the interval (0.25 s).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import psutil

KB = 1024


def descendants(pid: int) -> Callable[[], list[int]]:
    """A function listing ``pid`` and every process below it."""

    def pids() -> list[int]:
        try:
            root = psutil.Process(pid)
            return [pid] + [child.pid for child in root.children(recursive=True)]
        except psutil.Error:
            return []

    return pids


KEYS = ("rss", "pss", "anonymous", "unique")


def usage(pid: int) -> tuple[dict[str, int], dict[str, int]]:
    """Bytes of RSS, PSS and anonymous memory (its proportional share) of one process, and the resident
    bytes of each file it maps (less their private copies, which are anonymous); zeros once it is gone."""
    found = {"rss": 0, "pss": 0, "anonymous": 0}
    files: dict[str, int] = {}
    path = ""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                parts = line.split()
                if parts and parts[0] == "Pss_Anon:":
                    found["anonymous"] = int(parts[1]) * KB
        with open(f"/proc/{pid}/smaps") as smaps:
            for line in smaps:
                parts = line.split()
                if not parts:
                    continue
                if not parts[0].endswith(":"):  # a mapping's header: range, modes, offset, device, inode, path
                    path = parts[5] if len(parts) > 5 and parts[5].startswith("/") else ""
                    continue
                key = parts[0][:-1].lower()
                if key not in ("rss", "pss", "anonymous"):
                    continue
                value = int(parts[1]) * KB
                if key != "anonymous":
                    found[key] += value
                if path and key in ("rss", "anonymous"):
                    files[path] = files.get(path, 0) + (value if key == "rss" else -value)
    except (OSError, ValueError, IndexError):
        pass
    return found, files


class Sampler:
    """Samples the summed memory of ``pids()`` every ``interval`` seconds until stopped."""

    def __init__(self, pids: Callable[[], list[int]], interval: float = 0.25):
        self.pids, self.interval = pids, interval
        self.peak = dict.fromkeys(KEYS, 0)
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            total = dict.fromkeys(KEYS, 0)
            files: dict[str, int] = {}
            for pid in self.pids():
                own, mapped = usage(pid)
                for key, value in own.items():
                    total[key] += value
                for path, value in mapped.items():
                    files[path] = max(files.get(path, 0), value)
            total["unique"] = total["anonymous"] + sum(files.values())
            self.peak = {key: max(self.peak[key], total[key]) for key in total}
            self.samples += 1
            self._stop.wait(self.interval)
