"""Commands run so that nothing they start outlives them, each within a deadline (Linux): how the nbgrader
door runs nbgrader.

``nbgrader autograde`` runs the student's code in a Jupyter kernel it starts. A process that code starts
can detach (double fork, ``setsid``) and survive the kernel: it could then write the gradebook after the
grade was read, or keep nbgrader's output open so the caller waits forever.

The reaper is a process that marks itself a child subreaper (``PR_SET_CHILD_SUBREAPER``), so every orphan
below it is re-parented to it instead of to init. It imports the modules it is started with once (for the
door, nbgrader's command line: about 2.5 s of CPU a command paid each time before), then runs one command
at a time, each in a child forked from it: a new process per command, as ``python -m MODULE ARGS`` would
be, started from a state no command has run in. When the command ends, or its deadline passes and it is
killed, every process still below the reaper is killed before the reply goes out, so nothing of one command
is alive when the next one starts. Usage (``Reaper`` is the caller's side)::

    python -m assignments.grading.doors.nbgrader.reaper [MODULE ...]

It answers ``{"ready": true}`` once the modules are imported, then reads one request per line on stdin,
``{"module", "args", "cwd", "deadline", "stdout", "stderr"}`` (the last two: files for the command's output),
and answers each with ``{"id", "status"}``: the request's id and the command's exit status, or 124 when the
deadline ended it. It exits at the end of its input. The caller takes only the line with its request's id: a
command's processes run as the caller's user and can open the reaper's output through /proc, so a line
they write there is skipped, never read as a status, whatever it holds.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import runpy
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>
DEADLINE_EXIT = 124  # what timeout(1) returns
GRACE_S = 60  # the reaper's own cleanup after a deadline, before the caller gives up on it
STARTUP_S = 120  # importing the modules, on a loaded machine
POLL_S = 0.02


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


# ---------------------------------------------------------------- the reaper's side


def _command(request: dict) -> None:
    """In the forked child: become ``python -m MODULE ARGS`` in the request's folder, its output in the
    request's files; never returns."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
            target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.dup2(target, fd)
            os.close(target)
        nothing = os.open(os.devnull, os.O_RDONLY)
        os.dup2(nothing, 0)
        os.close(nothing)
        sys.stdin = open(0, closefd=False)  # not the reaper's buffered requests
        os.chdir(request["cwd"])
        sys.argv = [request["module"], *request["args"]]
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as stop:
        if isinstance(stop.code, int) or stop.code is None:
            code = stop.code or 0
        else:
            print(stop.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - reported as python reports it, exit status 1
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001, S110 - a closed stream: nothing more to say
                pass
        os._exit(code)


def _wait(pid: int, deadline_s: float) -> int | None:
    """The child's exit status, or None once ``deadline_s`` has passed (the child is then killed)."""
    until = time.monotonic() + deadline_s
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() >= until:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(POLL_S)


def run(request: dict, subreaper: bool) -> int:
    """One command, then everything it left behind killed; its status (``DEADLINE_EXIT`` past the deadline)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _command(request)
    status = _wait(pid, float(request["deadline"]))
    stray = kill_descendants()
    notes = [] if subreaper else ["[reaper] PR_SET_CHILD_SUBREAPER failed; detached processes may survive"]
    if status is None:
        notes.append(f"[reaper] the command ran past its {float(request['deadline']):g} s deadline and was killed")
        status = DEADLINE_EXIT
    if stray:
        notes.append(f"[reaper] killed {len(stray)} process(es) left behind: {sorted(set(stray))}")
    if notes:
        with open(request["stderr"], "a", encoding="utf-8") as err:
            err.write("".join(f"{note}\n" for note in notes))
    return status


def serve(warm: list[str]) -> int:
    subreaper = become_subreaper()
    for name in warm:
        importlib.import_module(name)
    # Ctrl-C in the instructor's terminal reaches the caller, which ends the reaper: not in mid-command here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if line.strip():
            request = json.loads(line)
            status = run(request, subreaper)
            # The newline first ends whatever a command's process left unfinished on this output.
            print("\n" + json.dumps({"id": request["id"], "status": status}), flush=True)
    return 0


# ---------------------------------------------------------------- the caller's side


class Reaper:
    """The caller's side: ``run`` sends one command to a reaper process, started (with ``env``, importing
    ``warm``) at the first command and again after one that stopped answering; ``close`` ends it. A reaper
    that does not answer within the deadline plus ``GRACE_S`` is killed with its process group and the
    command reported as ended by its deadline."""

    def __init__(self, env: dict, warm: tuple[str, ...] = ()):
        self.env, self.warm = env, warm
        self.process: subprocess.Popen | None = None
        self.pending = b""
        self.scratch = Path(tempfile.mkdtemp(prefix="course-reaper-"))

    def __enter__(self) -> Reaper:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, module: str, args: list[str], cwd: Path, deadline: float) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", module, *args]
        out, err = self.scratch / "stdout", self.scratch / "stderr"
        for path in (out, err):
            path.write_bytes(b"")
        if self.process is not None and self.process.poll() is not None:  # it died between two commands
            self.process = None
        if self.process is None:
            started = self._start()
            if started is not None:
                return subprocess.CompletedProcess(command, 1, "", started)
        request = {"module": module, "args": list(args), "cwd": str(cwd), "deadline": deadline}
        request["id"] = secrets.token_hex(16)  # what the reply must carry: the command never sees it
        try:
            self.process.stdin.write(json.dumps({**request, "stdout": str(out), "stderr": str(err)}).encode() + b"\n")
            self.process.stdin.flush()
        except OSError:  # it died just now: as one that stopped answering
            reply = None
        else:
            reply = self._reply(deadline + GRACE_S, request["id"])
        stdout, stderr = (path.read_text(errors="replace") for path in (out, err))
        if reply is None:
            self._kill()
            return subprocess.CompletedProcess(command, DEADLINE_EXIT, stdout, stderr + "\n[reaper unresponsive]")
        return subprocess.CompletedProcess(command, reply["status"], stdout, stderr)

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            try:
                self.process.wait(GRACE_S)
            except subprocess.TimeoutExpired:
                self._kill()
            self.process = None
        shutil.rmtree(self.scratch, ignore_errors=True)

    def _start(self) -> str | None:
        """Start the reaper; None once it is ready, else what it printed before it failed."""
        log = self.scratch / "reaper.log"
        with open(log, "wb") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-m", __name__, *self.warm],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=self.env,
                start_new_session=True,  # if the reaper is stuck, its whole group can still be ended
            )
        self.pending = b""
        if self._reply(STARTUP_S, None) == {"ready": True}:
            return None
        self._kill()
        return f"[reaper] did not start:\n{log.read_text(errors='replace')[-4000:]}"

    def _reply(self, timeout: float, request_id: str | None) -> dict | None:
        """The reaper's line for ``request_id`` (None: its ready line, written before any command ran), or None
        at EOF or after ``timeout`` seconds; any other line is skipped."""
        until = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while True:
            while b"\n" not in self.pending:
                left = until - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    return None
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self.pending += chunk
            line, self.pending = self.pending.split(b"\n", 1)
            try:
                reply = json.loads(line)
            except ValueError:
                continue
            if request_id is None or (isinstance(reply, dict) and reply.get("id") == request_id):
                return reply

    def _kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        self.process = None


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:]))
