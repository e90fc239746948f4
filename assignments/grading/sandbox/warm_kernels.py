"""Warm kernels for a batch: the grader's side of ``programs/zygote.py``.

A cold kernel spends about 4 s of CPU on every submission importing ipykernel, torch, ``torch._dynamo``,
transformers and datasets (benchmarks/README.md). During a batch, ``Zygote`` keeps one process that has
imported them. Each grader process asks it, through the socket named by ``ZYGOTE_ENV``, for a launcher
forked from it (``ForkedLauncher``, which ``KernelProcess`` uses where it would use a ``Popen``). Every
protection of the cold launch applies unchanged, because the forked child runs the same
``launch.launch``. Anything the warm path cannot do (no mount namespace, another environment, no
zygote) ends in a cold start: the scores cannot depend on it.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import psutil

# Set in a grader process to the zygote's socket; unset: every kernel starts cold.
ZYGOTE_ENV = "COURSE_KERNEL_ZYGOTE"
# What the zygote imports: what the graded notebooks and the runtime import, and ipykernel itself
# (matplotlib with its font list, which a cold kernel builds again in every fresh scratch folder).
PRELOAD = [
    "ipykernel.kernelapp",
    "torch",
    "torch._dynamo",
    "numpy",
    "datasets",
    "tokenizers",
    "tqdm.auto",
    "PIL.Image",
    "matplotlib.pyplot",
    "transformers",
    "transformers.models.bert.modeling_bert",
    "transformers.models.clip.modeling_clip",
]
SCRIPT = Path(__file__).parent / "programs" / "zygote.py"
START_TIMEOUT_S = 120.0
SCRATCH_NAME = "scratch"  # a batch zygote's fixed scratch folder, beside its socket (warm_scratch)
# A one-submission grader (``runner_command``) imports these before it forks its zygote, so that it and its
# kernel share their pages: the two largest imports of both (about 200 MB of memory that cannot be
# reclaimed, benchmarks/README.md), and neither reads a per-kernel setting (a path in scratch) when imported.
SHARED = ["torch", "torch._dynamo"]
# What a process reads once, when Python starts (the hash seed, the user site, bytecode writing) or when
# OpenMP and MKL load (their thread counts): a kernel forked from the grader's process has the grader's,
# so the grader starts with the kernel's (``runner_env``), and the zygote checks they agree.
START_VARIABLES = [
    "PYTHONHASHSEED",
    "PYTHONNOUSERSITE",
    "PYTHONDONTWRITEBYTECODE",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
]


def runner_env(kernel_env: dict) -> dict:
    """The ``START_VARIABLES`` of a grader started by ``runner_command``: its kernel's values."""
    return {name: kernel_env[name] for name in START_VARIABLES}


def runner_preload(notebook_imports: set[str]) -> list[str]:
    """What a one-submission zygote imports for its kernel: ipykernel, and each of ``PRELOAD`` whose
    package the notebook imports (``hygiene.imported_modules``). The zygote stays alive beside its
    kernel, so a library the notebook never imports would only cost memory (transformers, for a notebook
    without it: about 50 MB)."""
    return ["ipykernel.kernelapp"] + [name for name in PRELOAD if name.split(".")[0] in notebook_imports]


def runner_command(python: str, preload: list[str], script: str = str(SCRIPT)) -> list[str]:
    """The start of the command line that runs one submission's grader with its kernels forked from a
    zygote sharing its pages (``programs/zygote.py``, second form), the zygote importing ``preload``
    (``runner_preload``) for them; ``-m MODULE ARGS`` or ``--script PATH ARGS`` completes it. Start it
    with ``runner_env``'s variables."""
    return [python, script, "--share", *SHARED, "--preload", *preload, "--same", *START_VARIABLES]


def warm_scratch(socket_path: str) -> Path | None:
    """Where a warm kernel's scratch folder is bound inside its mount namespace: a path the zygote's
    environment names (libraries read it at import). On the host it is a folder of the zygote's own,
    0700 under the grader's /tmp, so what the libraries write there at import (matplotlib's font list)
    stays the grader's; inside the namespace /tmp is private and the path leads to the student's scratch.
    None for a one-submission zygote (``runner_command``), which has no such folder: it takes its kernel's
    own environment, scratch included, so nothing is bound and no namespace is needed."""
    folder = Path(socket_path).with_name(SCRATCH_NAME)
    return folder if folder.is_dir() else None


class Zygote:
    """The batch's zygote process, from ``start`` until ``close``; ``socket`` is what grader processes need."""

    def __init__(self, proc: subprocess.Popen, folder: Path):
        self.proc, self.folder = proc, folder
        self.socket = str(folder / "zygote.sock")

    @classmethod
    def spawn(cls, kernel_env: Callable[[Path], dict]) -> Zygote:
        """Start a zygote with the environment ``kernel_env(scratch)`` gives a kernel whose scratch is at
        ``warm_scratch``; it imports in the background. Grader processes may ask for kernels at once:
        ``ForkedLauncher.fork`` waits until the socket is there, or starts cold if the zygote failed."""
        # 0700, and always under /tmp, which every kernel's mount namespace covers with its own tmpfs
        folder = Path(tempfile.mkdtemp(prefix="course-zygote-", dir="/tmp"))
        socket_path = str(folder / "zygote.sock")
        scratch = Path(socket_path).with_name(SCRATCH_NAME)
        scratch.mkdir(mode=0o700)
        proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), socket_path, *PRELOAD],
            env=kernel_env(scratch),
            cwd=str(folder),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        (folder / "pid").write_text(str(proc.pid))  # for graders waiting on it: is it still there?
        return cls(proc, folder)

    @classmethod
    def start(cls, kernel_env: Callable[[Path], dict]) -> Zygote | None:
        """A zygote that is ready (``spawn``, then wait), or None if it would not start."""
        zygote = cls.spawn(kernel_env)
        ready, _, _ = select.select([zygote.proc.stdout], [], [], START_TIMEOUT_S)
        if not ready or zygote.proc.stdout.readline() != b"ready\n":
            zygote.close()
            return None
        return zygote

    def close(self) -> None:
        """Stop the zygote (its launchers die with it) and remove its folder."""
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def zygote_socket() -> str | None:
    return os.environ.get(ZYGOTE_ENV) or None


def _connect(path: str) -> socket.socket:
    """A connection to the zygote at ``path``. A batch starts grading while its zygote still imports, so
    wait for the socket while the zygote has not said it failed; OSError when it failed or never came."""
    failed = Path(path).with_name("failed")
    try:
        zygote_pid = int(Path(path).with_name("pid").read_text())
    except (OSError, ValueError):
        raise OSError(f"no warm zygote at {path}") from None
    end = time.monotonic() + START_TIMEOUT_S
    refused_until = None
    while True:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(path)
            return conn
        except (FileNotFoundError, ConnectionRefusedError) as error:
            conn.close()
            now = time.monotonic()
            if isinstance(error, ConnectionRefusedError):  # bound, not yet listening; or a dead zygote
                refused_until = refused_until or now + 1.0
            if (
                failed.exists()
                or not psutil.pid_exists(zygote_pid)
                or now > end
                or (refused_until and now > refused_until)
            ):
                raise OSError(f"no warm zygote at {path} ({error.strerror})") from None
        time.sleep(0.05)


class ForkedLauncher:
    """A launcher forked by the zygote, with the part of ``Popen``'s interface ``KernelProcess`` uses:
    ``pid``, ``poll``, ``wait``, ``returncode``, ``stdout`` (the kernel's log)."""

    def __init__(self, conn: socket.socket, pid: int, log, lifeline: int):
        self.conn, self.pid, self.stdout, self._lifeline = conn, pid, log, lifeline
        self.returncode: int | None = None
        self._buffer = b""

    @classmethod
    def fork(cls, path: str, config: dict, status_fd: int) -> ForkedLauncher:
        """Ask the zygote at ``path`` for a launcher; OSError or ValueError if it cannot."""
        log_read, log_write = os.pipe()
        lifeline_read, lifeline_write = os.pipe()
        conn = None
        try:
            conn = _connect(path)
            conn.settimeout(START_TIMEOUT_S)
            socket.send_fds(conn, [json.dumps(config).encode() + b"\n"], [status_fd, log_write, lifeline_read])
            reply = json.loads(cls._line(conn))
            if "pid" not in reply:
                raise ValueError(f"the zygote refused: {reply.get('error', reply)}")
        except (OSError, ValueError):
            if conn is not None:
                conn.close()
            for fd in (log_read, lifeline_write):
                os.close(fd)
            raise
        finally:
            for fd in (log_write, lifeline_read):
                os.close(fd)
        conn.setblocking(False)
        return cls(conn, int(reply["pid"]), open(log_read, "rb"), lifeline_write)

    @staticmethod
    def _line(conn: socket.socket) -> bytes:
        data = b""
        while not data.endswith(b"\n"):
            chunk = conn.recv(4096)
            if not chunk:
                raise ValueError("the zygote closed the connection")
            data += chunk
        return data

    def _read_exit(self, timeout: float) -> None:
        if self.returncode is not None:
            return
        ready, _, _ = select.select([self.conn], [], [], max(0.0, timeout))
        if not ready:
            return
        try:
            chunk = self.conn.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        self._buffer += chunk
        if b"\n" in self._buffer:
            self.returncode = int(json.loads(self._buffer.split(b"\n")[0]).get("exit", 1))
        elif not chunk:
            self.returncode = -9  # the zygote went away: its launchers died with it

    def poll(self) -> int | None:
        self._read_exit(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            left = 1.0 if end is None else end - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired("warm kernel launcher", timeout)
            self._read_exit(min(left, 1.0))
        self.release()
        return self.returncode

    def release(self) -> None:
        """Close the lifeline (the launcher kills its sandbox when it sees that) and the connection."""
        if self._lifeline is not None:
            os.close(self._lifeline)
            self._lifeline = None
        self.conn.close()


__all__ = [
    "Zygote",
    "ForkedLauncher",
    "ZYGOTE_ENV",
    "warm_scratch",
    "zygote_socket",
    "runner_command",
    "runner_env",
    "runner_preload",
]
