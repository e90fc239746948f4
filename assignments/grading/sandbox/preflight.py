"""Before grading: can the sandbox run a student's code correctly on this machine?

Each isolation mode depends on the machine. With namespaces, the kernel runs in its own mount namespace
with the Python installation bound back; without them (a default Docker container, Gradescope), as root
it runs as a uid of its own that must be able to reach and read the Python installation, which pyenv
and conda put under ``/root`` (0700) by default. Where the mode cannot work, every hidden test would fail
on correct code ("your code raised PermissionError") or no kernel would start, and the student would be
told it was their code. So a probe runs first, once per grading process (``course grade``'s batch, the
Gradescope runner's submission, ``setup.sh`` while the image is built): the launcher starts, with every
protection of the mode it finds, the interpreter in the kernel's place; that interpreter imports what a
kernel imports first (ipykernel, torch), reads a file the grader wrote for the kernel's uid and writes
one back, as every hidden test's call does. Where it fails, grading is refused before it starts, with
the reason and what to change.

    python -m assignments.grading.sandbox.preflight     # exit status 1, and why, where it would refuse
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

from assignments.grading.sandbox.cgroups import NO_CGROUP_ENV
from assignments.grading.sandbox.limits import Limits
from assignments.grading.sandbox.process import NO_NAMESPACES_ENV, KernelProcess, drop_user
from assignments.grading.sandbox.scratch import python_roots, write_new_file

# What the probe runs as the kernel: its first imports, then a request and a reply through scratch.
PROBE = (
    "import ipykernel.kernelapp, torch\n"
    "with open('probe.in', 'rb') as request:\n"
    "    data = request.read()\n"
    "with open('probe.out', 'wb') as reply:\n"
    "    reply.write(data[::-1])\n"
)
PROBE_WAIT_S = 300.0
PLACES = (
    "install Python and the course's packages where every user can reach and read them (under /usr, "
    "/usr/local or /opt, or a virtual environment outside /root: pyenv's and conda's default places under "
    "/root are not), or grade where the sandbox gets namespaces (a machine, or a container that allows "
    "user namespaces)"
)
# Verdicts of this process, by what decides them (``_machine``): a batch asks once, a test suite once per
# setting it tries.
_VERDICTS: dict[tuple, str | None] = {}


def refusal(limits: Limits | None = None) -> str | None:
    """Why the sandbox cannot run student code correctly on this machine, with what to change; None where
    it can (or where isolation is switched off: the kernel is then the grader's own process's kin)."""
    limits = limits or Limits()
    if not limits.isolate:
        return None
    key = _machine()
    if key not in _VERDICTS:
        _VERDICTS[key] = _probe(limits)
    return _VERDICTS[key]


def _machine() -> tuple:
    """What the probe's verdict depends on: the grader's uid, the switches that choose the mode, the
    interpreter, and which folders on the way to it others may search."""
    roots = [os.path.realpath(sys.executable), *(os.path.realpath(root) for root in python_roots())]
    folders = sorted({str(parent) for root in roots for parent in Path(root).parents})
    searchable = tuple(_searchable(folder) for folder in folders)
    switches = tuple(os.environ.get(name) for name in (NO_NAMESPACES_ENV, NO_CGROUP_ENV))
    return os.geteuid(), switches, tuple(roots), tuple(folders), searchable


def _searchable(folder: str) -> bool | None:
    try:
        return bool(os.stat(folder).st_mode & stat.S_IXOTH)
    except OSError:
        return None


def _probe(limits: Limits) -> str | None:
    """Run the probe in a sandbox made as a student's is (scratch handed to the kernel's uid, the request
    file written as the grader writes each test's)."""
    owner = drop_user()
    workdir = Path(tempfile.mkdtemp(prefix="course-preflight-"))
    kernel = None
    try:
        scratch = workdir / "scratch"
        scratch.mkdir(mode=0o700)
        if owner:
            os.chmod(workdir, 0o711)
            os.chown(scratch, *owner)
        token = secrets.token_hex(16).encode()
        write_new_file(scratch / "probe.in", token, owner, 0o600)
        kernel = KernelProcess(workdir, scratch, limits, owner, ())
        kernel.launch(scratch / "kernel.json", program=[sys.executable, "-c", PROBE])
        try:
            code = kernel.proc.wait(timeout=PROBE_WAIT_S)
        except subprocess.TimeoutExpired:
            # Slow is no verdict (a cold page cache and a busy machine took over a minute here to import a
            # CUDA build of torch): what it guards against fails at once. The kernel's own start has its
            # deadline, and missing it is a finding the student does not read as theirs.
            return None
        if kernel.status.get("refused"):
            return _refused(kernel.status["refused"], PLACES)
        if code != 0:
            last = (kernel.death_reason() if code < 0 or code > 128 else "") or _last_line(kernel.log())
            return _refused(
                f"a sandboxed Python, started as the kernel is, could not import ipykernel and torch or use its "
                f"scratch folder (exit status {code}: {last})",
                "make every file of the Python installation and its packages readable by other users (pip run "
                f"with umask 077 leaves them private), or {PLACES}",
            )
        if _read_reply(scratch / "probe.out") != token[::-1]:
            return _refused(
                "a sandboxed Python could not hand a reply back through its scratch folder", "report this as a bug"
            )
        return None
    except OSError as error:
        return _refused(
            f"no sandbox could be prepared ({type(error).__name__}: {error.strerror or error})",
            "free disk space in the temporary folder and check that the grader may write there",
        )
    finally:
        if kernel is not None:
            kernel.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _read_reply(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return b""
    with os.fdopen(fd, "rb") as handle:
        return handle.read(1024)


def _last_line(log: str) -> str:
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "it printed nothing"


def _refused(why: str, change: str) -> str:
    return (
        f"the sandbox cannot run students' code correctly on this machine: {why}. Every hidden test would fail "
        f"on correct code, so nothing is graded here. To grade, {change}"
    )


def main() -> int:
    why = refusal()
    if why:
        print(why, file=sys.stderr)
        return 1
    print("the sandbox runs students' code correctly on this machine")
    return 0


if __name__ == "__main__":
    sys.exit(main())
