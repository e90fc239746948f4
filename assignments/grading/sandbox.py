"""The standalone door's sandbox: the student's notebook runs in a child Jupyter kernel, never here.

One ``Sandbox`` serves one submission. It makes a private work folder whose ``scratch/`` subfolder holds
a copy of the submission and nothing else, starts a real ipykernel there through ``sandbox_launch.py``,
executes the restored notebook's code cells one by one, and then answers hidden-test snippets for
``KernelHandle`` (the ``StudentHandle`` the parent's pytest run receives).

Crossing the boundary. The parent writes a request (snippet, inputs, stand-in source, seed) with
``torch.save`` into scratch; the kernel loads it with ``torch.load(weights_only=True)``, runs
``runtime.run_snippet`` (runtime.py's text is sent into the kernel once and executed into a private
module object, nothing is imported from the repository), and writes ``{"ok": ..., "result": ...}`` with
``torch.save``. The parent opens that file without following links, checks it is a regular file under
the size cap and reads it with ``torch.load(weights_only=True)``: tensors, numbers, strings, None and
containers of them, never an arbitrary pickle. Printed output is never read as a result; it is capped
and kept only to report it.

Protection, and what it depends on (``status`` records what the machine granted; anything missing
becomes a ``sandbox-degraded`` finding):

- **network**: a new network namespace with no interfaces up; the kernel's ZMQ sockets use the ``ipc``
  transport (Unix socket files in scratch), which crosses namespaces. Needs root or unprivileged user
  namespaces (most Linux laptops; some distributions, e.g. Ubuntu 24.04 with AppArmor, restrict them).
  Without namespaces (or with ``COURSE_SANDBOX_NO_NAMESPACES=1``, see ``NO_NAMESPACES_ENV``) a seccomp
  filter installed just before exec refuses ``socket()`` for every family but ``AF_UNIX`` and refuses
  ``io_uring_setup``, with EOPNOTSUPP (libzmq aborts the kernel on EPERM from getifaddrs); x86_64 and
  aarch64 only, syscalls of any other ABI (x32, 32-bit compat) are refused, and on another architecture
  no filter is guessed: the kernel keeps the network and the finding says so. Path sockets the kernel's
  uid may open (a world-connectable D-Bus socket under ``/run``) stay reachable there.
- **files**: a new mount namespace in which the repository (source, solutions, autograder, grades,
  everything), the grader's home, the submissions folder, ``/tmp``, ``/var/tmp`` and ``/dev/shm`` are
  covered by empty tmpfs (the temporary ones writable and private); only the Python installation and
  scratch are bound back; every other mount is made read-only (``mount_setattr``, Linux >= 5.12), and a
  new PID namespace with its own ``/proc`` hides the grader's processes (so ``/proc/<pid>/root`` cannot
  lead back to the repository). As root the kernel then runs as a uid of its own (``SANDBOX_UIDS``, one
  per sandbox, so kernels of different students cannot read or signal each other); in a user namespace
  it keeps the grader's uid with no capabilities, so it can still write to the grader's files that are
  visible and not read-only (only on kernels without mount_setattr).
- **files without namespaces** (root only): the kernel still drops to its own uid, with umask 077 and
  ``TMPDIR`` in scratch; scratch is its, the work folder above it is 0711. Permissions are then the only
  wall: the grader's folders must be 0700 (Gradescope: ``setup.sh`` does it for the bundle), and the
  launcher measures, as that uid, which of the folders it was told to hide (repository, grader's home,
  ``hide=``, ``HIDDEN_SYSTEM_PATHS``) it can enter and which shared temporary folders it can write, and
  the ``sandbox-degraded`` finding names them, along with the visible process list and world-readable
  system files. It cannot write the grader's files or signal the grader (another uid). The drop needs the
  Python installation reachable by others (every folder on the way ``o+x``); where it is not, the kernel
  runs as root without capabilities and the finding says so. Without root nothing is hidden: the
  student's code can read what the grader's user can read.
- **memory**: a watchdog thread sums the RSS of the kernel's whole process tree every 50 ms and kills it
  above the cap (default 2 GB); ``RLIMIT_AS`` (twice the cap) stops a single huge allocation at once,
  ``RLIMIT_FSIZE`` caps any one file it writes, ``RLIMIT_CPU`` the kernel's CPU seconds (twice the total
  budget) and, when kernels run as their own uid, ``RLIMIT_NPROC`` stops fork bombs. Fast allocators can
  overshoot the watchdog by a few hundred MB between two samples; a cgroup would be exact but is not
  assumed to be delegated.
- **time**: per-cell and per-call timeouts, then SIGINT; a kernel that ignores it is killed, restarted,
  and the cells that had completed are executed again so later tests still run; everything shares one
  total budget per submission. At most ``Limits.max_restarts`` restarts.
- **teardown**: the kernel is PID 2 under an init that dies with the launcher (``PR_SET_PDEATHSIG``),
  so killing the launcher ends every process the student started inside the PID namespace (without one,
  every process running as the sandbox's uid is killed, daemons that left the tree included); the work
  folder is removed whatever happened. Not limited: CPU use below the timeouts.
- **disk**: the scratch folder stays on the host disk (the grader must read reply files from it, so a
  tmpfs private to the kernel's namespace would not do); the watchdog sums its allocated blocks every
  250 ms and kills the kernel above ``Limits.scratch_bytes``, ``RLIMIT_FSIZE`` bounds any one file, and a
  restart empties scratch back to the submission alone. Overshoot is what the kernel writes in 250 ms.
- **the grader's own writes** into scratch (submission, ``kernel.json``, request files) create new files
  with ``O_EXCL | O_NOFOLLOW`` after removing, without following, whatever the kernel left at that name.
- **replies** are decoded by ``reply.decode_reply`` with limits (archive size from the zip directory,
  value count, nesting, tensor sizes, strides and storage bounds) before any torch operation.
- **text**: everything the kernel reports (exception messages, type names) reaches feedback only through
  ``handle.untrusted_text``: printable ASCII, first line, at most ``KERNEL_TEXT_CHARS`` in all.
- **accelerators**: ``CUDA_VISIBLE_DEVICES`` (and the ROCm equivalents) are empty in the kernel.
"""

from __future__ import annotations

import json
import os
import queue
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import psutil

from . import runtime
from .environment import GRADING_ENV
from .handle import SandboxError, StudentCodeError, StudentHandle, StudentTimeout, untrusted_text
from .reply import decode_reply
from ..results.model import Finding
from ..course import REPO

# Path sockets and other users' runtime folders (D-Bus, systemd, docker, XDG_RUNTIME_DIR): covered with
# empty tmpfs in the kernel's mount namespace, so a user-namespace kernel cannot talk to the grader's
# session services.
HIDDEN_SYSTEM_PATHS = ("/run", "/var/run", "/run/user", "/var/lib/docker", "/var/lib/dbus")
# Set to "1" to refuse namespaces to the launcher, so the fallback (uid drop, permissions, seccomp) can be
# tested on machines that have them.
NO_NAMESPACES_ENV = "COURSE_SANDBOX_NO_NAMESPACES"
# A root grader runs each kernel as its own uid picked at random from this range (no passwd entry is
# needed): without namespaces, two students' kernels then cannot read each other's scratch or signal
# each other. 2**20 uids, far above any real account and below 2**31.
SANDBOX_UIDS = range(0x60000000, 0x60000000 + 2 ** 20)
LAUNCHER = Path(__file__).with_name("sandbox_launch.py")
RUNTIME_MODULE = "_course_grader_runtime"
MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Everything one submission may use. Tests shrink these to keep hostile fixtures fast."""

    cell_timeout: float = 60.0          # one notebook cell
    call_timeout: float = 60.0          # one hidden-test snippet (a test may ask for less, never more)
    total_timeout: float = 300.0        # the whole submission: notebook, restarts and every test
    startup_timeout: float = 60.0       # kernel start until it answers
    interrupt_grace: float = 2.0        # after SIGINT, how long before the kernel is killed
    memory_bytes: int = 2 * 1024 ** 3   # RSS of the kernel's whole process tree
    max_result_bytes: int = 256 * MB    # one snippet's result file
    max_output_chars: int = 10_000      # printed output kept per cell
    max_restarts: int = 3
    scratch_bytes: int = 1024 * MB      # everything the kernel writes into its scratch folder
    max_reply_items: int = 1_000_000     # values (tensors, numbers, strings) in one reply
    max_reply_depth: int = 32           # nesting of lists/tuples/dicts in one reply
    threads: int = 1                    # torch/OpenMP threads in the kernel (workers run in parallel)
    isolate: bool = True                # namespaces; False only for debugging


@dataclass
class CellOutcome:
    status: str            # "ok" | "error" | "timeout" | "died"
    error: str = ""        # "Name: message" for status error
    output: str = ""       # printed output, capped
    truncated: bool = False


# Sent into the kernel once per start. Runs there, next to student code; defines a private module whose
# ``serve`` answers one request file with one reply file.
_BOOTSTRAP = r'''
def _install(runtime_source, user_ns, module_name):
    import contextlib, io, os, sys, types, warnings
    import torch

    runtime = types.ModuleType(module_name)
    exec(compile(runtime_source, "<grader runtime>", "exec"), runtime.__dict__)

    class Sink(io.TextIOBase):
        def writable(self):
            return True

        def write(self, text):
            return len(text)

    def describe(error):
        try:
            lines = str(error).strip().splitlines()
        except BaseException:
            lines = []
        first = lines[0] if lines else ""
        first = first[:300] + "..." if len(first) > 300 else first
        return f"{type(error).__name__}: {first}" if first else type(error).__name__

    def serve(in_path, out_path, max_bytes):
        try:
            request = torch.load(in_path, weights_only=True)
            with warnings.catch_warnings(), contextlib.redirect_stdout(Sink()), \
                    contextlib.redirect_stderr(Sink()):
                warnings.simplefilter("ignore")
                value = runtime.run_snippet(user_ns, request["code"], request["inputs"],
                                            request["stand_in_source"], tuple(request["stand_ins"]),
                                            request["seed"])
            reply = {"ok": True, "result": value}
        except runtime.ResultTypeError as error:
            reply = {"ok": False, "kind": "result", "error": str(error)}
        except KeyboardInterrupt:
            reply = {"ok": False, "kind": "interrupted", "error": "interrupted"}
        except BaseException as error:
            reply = {"ok": False, "kind": "code", "error": describe(error)}
        try:
            data = runtime.to_bytes(reply)
        except BaseException as error:
            data = runtime.to_bytes({"ok": False, "kind": "result", "error": describe(error)})
        if len(data) > max_bytes:
            data = runtime.to_bytes({"ok": False, "kind": "too-big",
                                     "error": f"the result is {len(data) / 1e6:.0f} MB"})
        with open(out_path + ".part", "wb") as handle:
            handle.write(data)
        os.replace(out_path + ".part", out_path)

    runtime.serve = serve
    sys.modules[module_name] = runtime

_install(*__args__)
'''


def _drop_user() -> tuple[int, int] | None:
    """The unprivileged uid and gid a root grader runs this sandbox's kernel as, or None when not root."""
    if os.geteuid() != 0:
        return None
    uid = SANDBOX_UIDS[secrets.randbelow(len(SANDBOX_UIDS))]
    return uid, uid


def namespaces_allowed() -> bool:
    return os.environ.get(NO_NAMESPACES_ENV, "") != "1"


def _python_roots() -> list[str]:
    """Folders the kernel's Python needs: the venv, the base installation, their site-packages."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             str(Path(os.path.realpath(sys.executable)).parent.parent)}
    for key in ("purelib", "platlib", "stdlib", "platstdlib"):
        roots.add(sysconfig.get_paths().get(key, sys.prefix))
    return sorted(r for r in roots if r and os.path.isdir(r) and r != "/")


def remove_entry(path: Path) -> None:
    """Remove a file, link or folder the kernel may have put at ``path``, never following a link."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path)   # rmtree works on file descriptors and does not follow links inside
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


def tree_bytes(root: Path) -> int:
    """Bytes allocated under ``root`` (links not followed; a vanishing entry counts as nothing)."""
    total, stack = 0, [str(root)]
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
            total += info.st_blocks * 512
            if stat.S_ISDIR(info.st_mode):
                stack.append(entry.path)
    return total


class Sandbox:
    """A child kernel for one submission: start, execute cells, serve snippets, tear down."""

    def __init__(self, submission: bytes, filename: str = "submission.ipynb", *,
                 limits: Limits | None = None, hide: tuple = ()):
        self.limits = limits or Limits()
        self.submission = submission
        self.filename = Path(filename).name or "submission.ipynb"
        self.hide = tuple(str(Path(p).resolve()) for p in hide)
        self.findings: list[Finding] = []
        self.status: dict = {}
        self.cell_outputs: list[tuple[str, str]] = []
        self.peak_rss = 0
        self.restarts = 0
        self.broken: str | None = None
        self.start_seconds = 0.0
        self._replay: list[tuple[str, str]] = []
        self._proc: subprocess.Popen | None = None
        self._client = None
        self._context = None
        self._killed: str | None = None
        self._needs_restart = False
        self._watch_stop = threading.Event()
        self._watchdog: threading.Thread | None = None
        self._stderr_tail = b""
        self.workdir: Path | None = None
        self.deadline = float("inf")

    # ---------------------------------------------------------------- lifecycle
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()

    def start(self):
        self.deadline = time.monotonic() + self.limits.total_timeout
        self._owner = _drop_user() if self.limits.isolate else None
        began = time.monotonic()
        try:
            self.workdir = Path(tempfile.mkdtemp(prefix="course-sandbox-"))
            self.scratch = self.workdir / "scratch"
            self.scratch.mkdir()
            if self._owner:   # the kernel's uid must pass through (not list) the work folder to scratch
                os.chmod(self.workdir, 0o711)
            write_new_file(self.scratch / self.filename, self.submission, self._owner, 0o644)
            if self._owner:
                os.chown(self.scratch, *self._owner)
            self._launch()
        except OSError as error:  # disk full, no temporary folder, launcher could not be executed
            self.close()
            raise SandboxError(f"the sandbox could not be prepared on the grading machine "
                               f"({type(error).__name__}: {error.strerror or error})") from None
        except BaseException:
            self.close()
            raise
        self.start_seconds = time.monotonic() - began
        self._report_isolation()

    def close(self):
        """Kill every process of the sandbox and remove the work folder; safe to call twice."""
        self._stop_kernel()
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def _kernel_env(self) -> dict:
        scratch = str(self.scratch)
        env = {
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": scratch, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "TMPDIR": "/tmp" if self.limits.isolate else scratch,
            "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
            "MPLBACKEND": "Agg", "MPLCONFIGDIR": f"{scratch}/.config/matplotlib",
            "IPYTHONDIR": f"{scratch}/.ipython", "JUPYTER_CONFIG_DIR": f"{scratch}/.jupyter",
            "JUPYTER_DATA_DIR": f"{scratch}/.local/share/jupyter",
            "JUPYTER_RUNTIME_DIR": f"{scratch}/.local/share/jupyter/runtime",
            "JUPYTER_PLATFORM_DIRS": "1", "XDG_CACHE_HOME": f"{scratch}/.cache",
            "HF_HOME": f"{scratch}/.cache/huggingface", "TOKENIZERS_PARALLELISM": "false",
            "OMP_NUM_THREADS": str(self.limits.threads), "MKL_NUM_THREADS": str(self.limits.threads),
            "PYDEVD_DISABLE_FILE_VALIDATION": "1",
            # the sandbox uid has no passwd entry: name it, so getpass and friends need no lookup
            "USER": "student", "LOGNAME": "student",
        }
        env.update(GRADING_ENV)
        return env

    def _launch(self):
        from jupyter_client import BlockingKernelClient
        import zmq

        for stale in os.listdir(self.scratch):  # the old kernel's sockets, or whatever it left there
            if stale.startswith("k-") or stale == "kernel.json":
                remove_entry(self.scratch / stale)
        key = secrets.token_hex(16)
        connection = {"transport": "ipc", "ip": str(self.scratch / "k"), "shell_port": 1, "iopub_port": 2,
                      "stdin_port": 3, "control_port": 4, "hb_port": 5, "key": key,
                      "signature_scheme": "hmac-sha256", "kernel_name": "python3"}
        conn_file = self.scratch / "kernel.json"
        write_new_file(conn_file, json.dumps(connection).encode(), self._owner, 0o600)
        hide = {str(REPO), os.path.expanduser("~"), *self.hide, *HIDDEN_SYSTEM_PATHS}
        cap = self.limits.memory_bytes
        config = {
            "isolate": self.limits.isolate, "namespaces": namespaces_allowed(), "scratch": str(self.scratch),
            "hide": sorted(h for h in hide if h and h != "/"),
            "private_tmp": sorted({tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"}),
            "tmp_size": f"{max(64, cap // MB // 4)}m",
            "keep": _python_roots() + [str(self.scratch)],
            "drop_to": self._owner,
            "rlimits": {"RLIMIT_AS": max(2 * cap, cap + 2 * 1024 ** 3),
                        "RLIMIT_FSIZE": self.limits.max_result_bytes + 16 * MB, "RLIMIT_CORE": 0,
                        "RLIMIT_CPU": int(2 * self.limits.total_timeout) + 10,
                        # per user: only meaningful (and harmless) for the dedicated unprivileged user
                        **({"RLIMIT_NPROC": 4096} if self._owner else {})},
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", str(conn_file),
                     "--HistoryManager.enabled=False"],
            "env": self._kernel_env(),
        }
        read_fd, write_fd = os.pipe()
        config["status_fd"] = write_fd
        self._killed = None
        self._proc = subprocess.Popen(
            [sys.executable, "-I", str(LAUNCHER), json.dumps(config)], cwd=str(self.workdir),
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, pass_fds=(write_fd,), start_new_session=True)
        os.close(write_fd)
        self._stderr_tail = b""
        threading.Thread(target=self._read_stderr, args=(self._proc.stdout,), daemon=True).start()
        self.status = self._read_status(read_fd)
        self._watch_stop = threading.Event()
        self._watchdog = threading.Thread(target=self._watch, args=(self._proc, self._watch_stop), daemon=True)
        self._watchdog.start()

        self._context = zmq.Context()
        self._context.setsockopt(zmq.MAXMSGSIZE, 64 * MB)   # a giant print cannot flood the grader
        self._context.setsockopt(zmq.LINGER, 0)
        client = BlockingKernelClient(context=self._context)
        client.load_connection_info(connection)
        client.start_channels(hb=False)
        self._client = client
        self._wait_for_ready(min(self.limits.startup_timeout, max(self.remaining(), 1.0)))
        outcome = self._execute(
            f"exec(compile({_BOOTSTRAP!r}, '<grader bootstrap>', 'exec'), "
            f"{{'__name__': '_course_grader_boot', '__args__': ({Path(runtime.__file__).read_text()!r}, "
            f"get_ipython().user_ns, {RUNTIME_MODULE!r})}})", self.limits.startup_timeout)
        if outcome.status != "ok":
            raise SandboxError(f"the grader's helper could not start in the kernel ({outcome.status} "
                               f"{outcome.error})")

    def _wait_for_ready(self, budget: float):
        """kernel_info until the kernel answers (the heartbeat is not used: it lags behind startup)."""
        end = time.monotonic() + budget
        while time.monotonic() < end:
            if not self.alive():
                break
            msg_id = self._client.kernel_info()
            poll_end = min(end, time.monotonic() + 1.0)
            while time.monotonic() < poll_end:
                try:
                    msg = self._client.get_shell_msg(timeout=0.1)
                except queue.Empty:
                    if not self.alive():
                        break
                    continue
                if msg.get("parent_header", {}).get("msg_id") == msg_id:
                    while True:  # iopub is connected once it delivers; drop what it has so far
                        try:
                            self._client.get_iopub_msg(timeout=0.2)
                        except queue.Empty:
                            return
        reason = self._death_reason() or f"no answer within {budget:g} s"
        # The kernel log is not quoted: after a restart it holds what student code wrote to stderr.
        raise SandboxError(f"the sandboxed kernel did not start ({reason})")

    def _read_status(self, fd) -> dict:
        """The launcher's report of the isolation it obtained, written just before ipykernel starts."""
        chunks = []
        end = time.monotonic() + self.limits.startup_timeout
        os.set_blocking(fd, False)
        try:
            while time.monotonic() < end:
                try:
                    data = os.read(fd, 65536)
                except BlockingIOError:
                    if self._proc.poll() is not None:
                        break
                    time.sleep(0.01)
                    continue
                if not data:
                    break
                chunks.append(data)
        finally:
            os.close(fd)
        try:
            return json.loads(b"".join(chunks) or b"{}")
        except ValueError:
            return {}

    def _read_stderr(self, stream):
        """Keep the last 16 KB of what the launcher and kernel write outside Jupyter's channels."""
        for line in iter(lambda: stream.read1(65536), b""):
            self._stderr_tail = (self._stderr_tail + line)[-16384:]

    def kernel_log(self) -> str:
        return self._stderr_tail.decode("utf-8", "replace")

    def _tree(self, proc) -> list:
        try:
            root = psutil.Process(proc.pid)
            return [root] + root.children(recursive=True)
        except psutil.Error:
            return []

    def _watch(self, proc, stop: threading.Event):
        """Memory watchdog over the kernel's whole process tree, and disk watchdog over its scratch."""
        ticks = 0
        while not stop.is_set() and proc.poll() is None:
            ticks += 1
            if ticks % 5 == 0 and tree_bytes(self.scratch) > self.limits.scratch_bytes:
                self._killed = (f"your code wrote more than {self.limits.scratch_bytes // MB} MB of files "
                                "and the kernel was stopped")
                self._kill_tree(proc)
                return
            total = 0
            for member in self._tree(proc):
                try:
                    total += member.memory_info().rss
                except psutil.Error:
                    pass
            self.peak_rss = max(self.peak_rss, total)
            if total > self.limits.memory_bytes:
                self._killed = (f"your code used more than {self.limits.memory_bytes / 1024 ** 3:g} GB of "
                                "memory and the kernel was stopped")
                self._kill_tree(proc)
                return
            stop.wait(0.05)

    def _kill_uid(self, uid):
        """Without a PID namespace a double-forked daemon leaves the kernel's tree; its uid is the
        sandbox's alone, so every process running as it is the student's."""
        if not isinstance(uid, int) or uid not in SANDBOX_UIDS:
            return
        for process in psutil.process_iter(["uids"]):
            try:
                if process.info["uids"] and uid in (process.info["uids"].real, process.info["uids"].effective):
                    process.kill()
            except psutil.Error:
                pass

    def _kill_tree(self, proc):
        for member in reversed(self._tree(proc)):
            try:
                member.kill()
            except psutil.Error:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def _stop_kernel(self):
        self._watch_stop.set()
        if self._client is not None:
            try:
                self._client.stop_channels()
            except Exception:  # noqa: BLE001 - tearing down; nothing to report
                pass
            self._client = None
        if self._proc is not None:
            self._kill_tree(self._proc)
            if self.status.get("fallback", {}).get("dropped"):
                # before closing stdout: a daemon holding that pipe would block the close forever
                self._kill_uid(self.status.get("uid"))
            if self._proc.stdout:
                self._proc.stdout.close()
            self._proc = None
        if self._context is not None:
            self._context.destroy(linger=0)
            self._context = None

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _death_reason(self) -> str:
        if self._killed:
            return self._killed
        if self._proc is None or self._proc.poll() is None:
            return ""
        code = self._proc.returncode
        if code > 128 or code < 0:
            number = code - 128 if code > 128 else -code
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            return f"the kernel was killed ({name})"
        return f"the kernel exited with status {code}"

    def _report_isolation(self):
        if not self.limits.isolate:
            self.findings.append(Finding("sandbox-degraded", "sandbox isolation was switched off", "info"))
            return
        status = self.status
        network = status.get("network") or status.get("seccomp")
        missing = [what for held, what in ((network, "network isolation"), (status.get("mount"), "hidden files"),
                                           (status.get("pid"), "private process list"),
                                           (status.get("proc"), "private /proc"),
                                           (status.get("readonly_root"), "read-only file system"))
                   if not held]
        if not missing:
            return
        details = []
        fallback = status.get("fallback") or {}
        if fallback.get("dropped"):
            details.append(f"without namespaces the kernel ran as uid {status.get('uid')}, kept from the "
                           "grader's files by permissions alone"
                           + (" and from the network by a seccomp filter (Unix sockets only)"
                              if status.get("seccomp") else ""))
            if fallback.get("readable"):
                details.append("folders that should be hidden could be entered by that uid (their files readable "
                               "wherever their own modes allow): "
                               + ", ".join(fallback["readable"]))
            if fallback.get("writable"):
                details.append("shared folders it could write: " + ", ".join(fallback["writable"]))
            details.append("it could list every process and read world-readable system files")
        details += status.get("notes", [])
        text = "; ".join(details)
        text = text[:1500] + "..." if len(text) > 1500 else text
        self.findings.append(Finding("sandbox-degraded",
                                     f"this machine could not give the sandbox: {', '.join(missing)}"
                                     f"{f' ({text})' if text else ''}", "info"))

    # ---------------------------------------------------------------- executing code
    def _execute(self, code: str, timeout: float, keep_output: bool = False) -> CellOutcome:
        """Run ``code`` in the kernel and wait for its reply, the deadline, or the kernel's death."""
        client = self._client
        msg_id = client.execute(code, silent=False, store_history=False, allow_stdin=False,
                                stop_on_error=False)
        end = time.monotonic() + max(0.0, min(timeout, self.remaining()))
        outcome = CellOutcome("ok")
        pieces: list[str] = []
        kept = 0
        reply = None
        idle_by = None
        while True:
            drain_until = time.monotonic() + 0.1   # a flood of output must not starve the checks below
            while time.monotonic() < drain_until:  # drain iopub: outputs are capped, never trusted
                try:
                    msg = client.get_iopub_msg(timeout=0)
                except queue.Empty:
                    break
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind, content = msg.get("msg_type"), msg.get("content", {})
                text = ""
                if kind == "stream":
                    text = str(content.get("text", ""))
                elif kind in ("execute_result", "display_data"):
                    text = str(content.get("data", {}).get("text/plain", ""))
                elif kind == "status" and content.get("execution_state") == "idle":
                    idle_by = 0.0
                if text and keep_output:
                    room = self.limits.max_output_chars - kept
                    if len(text) > room:
                        outcome.truncated = True
                    if room > 0:
                        pieces.append(text[:room])
                        kept += min(room, len(text))
            if reply is not None and (idle_by == 0.0 or time.monotonic() > idle_by):
                break
            if not self.alive():
                outcome.status = "died"
                break
            if time.monotonic() > end:
                outcome.status = "timeout"
                break
            try:
                msg = client.get_shell_msg(timeout=0.05)
            except queue.Empty:
                continue
            if msg.get("parent_header", {}).get("msg_id") == msg_id:
                reply = msg.get("content", {})
                idle_by = time.monotonic() + 1.0 if idle_by is None else idle_by
        outcome.output = "".join(pieces)
        if reply is not None and reply.get("status") == "error":
            outcome.status = "error"
            outcome.error = untrusted_text(reply.get("ename", "Error"), reply.get("evalue", ""))
        return outcome

    def _recover(self, why: str):
        """After a timeout: interrupt; if the kernel ignores it, restart it and replay the notebook."""
        if self.alive():
            try:
                os.kill(self._proc.pid, signal.SIGINT)
            except OSError:
                pass
            probe = self._execute("None", self.limits.interrupt_grace)
            if probe.status in ("ok", "error"):
                return
        self.restart(why)

    def restart(self, why: str):
        """A fresh kernel with the completed cells executed again, within the total budget."""
        self._stop_kernel()
        if self.restarts >= self.limits.max_restarts:
            self.broken = f"the kernel had to be restarted {self.restarts} times; grading stopped ({why})"
            return
        if self.remaining() <= 1:
            self.broken = "the time budget for this submission is used up"
            return
        self.restarts += 1
        self.findings.append(Finding("kernel-restarted", f"the kernel was restarted after {why}", "info"))
        try:
            # Back to the starting scratch (the replay writes again whatever honest cells wrote): a
            # scratch filled past its quota would otherwise stop the new kernel at once.
            for entry in os.listdir(self.scratch):
                if entry != self.filename:
                    remove_entry(self.scratch / entry)
            self._launch()
        except OSError as error:
            self.broken = f"the kernel could not be restarted ({type(error).__name__})"
            return
        except SandboxError as error:
            self.broken = str(error)
            return
        for label, source in self._replay:
            outcome = self._execute(source, min(self.limits.cell_timeout, self.remaining()))
            if outcome.status in ("timeout", "died"):
                self.broken = f"cell {label} did not complete when the notebook was executed again"
                self._stop_kernel()
                return
        self._needs_restart = False

    def execute_cells(self, cells: list[tuple[str, str]]) -> None:
        """Execute the notebook's cells in order; every failure becomes a finding, the next cell runs."""
        for label, source in cells:
            if self.broken:
                self.findings.append(Finding("cell-skipped", f"cell {label} was not run: {self.broken}",
                                             "error", label))
                continue
            if self._needs_restart:
                self.restart("the kernel died")
                if self.broken:
                    continue
            if self.remaining() <= 0:
                self.broken = "the time budget for this submission is used up"
                self.findings.append(Finding("time-budget", f"cell {label} was not run: {self.broken}",
                                             "error", label))
                continue
            outcome = self._execute(source, self.limits.cell_timeout, keep_output=True)
            self.cell_outputs.append((label, outcome.output))
            if outcome.truncated:
                self.findings.append(Finding("output-truncated",
                                             f"cell {label} printed more than {self.limits.max_output_chars} "
                                             "characters; the rest was discarded", "info", label))
            if outcome.status == "ok":
                self._replay.append((label, source))
            elif outcome.status == "error":
                self._replay.append((label, source))
                self.findings.append(Finding("cell-error", f"cell {label} raised {outcome.error}",
                                             "warning", label))
            elif outcome.status == "timeout":
                limit = min(self.limits.cell_timeout, self.limits.total_timeout)
                self.findings.append(Finding("cell-timeout",
                                             f"cell {label} did not finish within {limit:g} s and was "
                                             "stopped; it is skipped from here on", "error", label))
                self._recover(f"cell {label} timed out")
            else:
                reason = self._death_reason() or "the kernel died"
                code = "memory-limit" if self._killed and "memory" in self._killed else "kernel-died"
                self.findings.append(Finding(code, f"cell {label}: {reason}; the cell is skipped and the "
                                                   "kernel restarted", "error", label))
                self._needs_restart = True

    # ---------------------------------------------------------------- snippets
    def call(self, code: str, inputs: dict, stand_in_source: str, stand_ins: tuple, seed: int,
             timeout: float):
        if self._needs_restart and not self.broken:
            self.restart("the kernel died during an earlier test")
        if self.broken:
            raise SandboxError(self.broken)
        if self.remaining() <= 0:
            raise StudentTimeout("the time budget for this submission is used up")
        token = secrets.token_hex(12)
        request_path = self.scratch / f"call-{token}.in"
        reply_path = self.scratch / f"call-{token}.out"
        request = {"code": code, "inputs": inputs, "stand_in_source": stand_in_source,
                   "stand_ins": list(stand_ins), "seed": int(seed)}
        fd = os.open(request_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(runtime.to_bytes(request))
        limit = min(timeout, self.limits.call_timeout)
        outcome = self._execute(
            f"__import__('sys').modules[{RUNTIME_MODULE!r}].serve({str(request_path)!r}, "
            f"{str(reply_path)!r}, {self.limits.max_result_bytes})", limit)
        try:
            request_path.unlink()
        except OSError:
            pass
        if outcome.status == "timeout":
            self._recover("a test call timed out")
            raise StudentTimeout(f"your code did not finish within {limit:g} s"
                                 if self.remaining() > 0 else "the time budget for this submission is used up")
        if outcome.status == "died":
            reason = self._death_reason() or "the kernel died"
            self._needs_restart = True
            raise SandboxError(reason)
        if outcome.status == "error":
            raise SandboxError(f"the grader's helper in your kernel failed ({outcome.error}); "
                               "did your code replace sys.modules, torch or builtins?")
        reply = self._read_reply(reply_path)
        if reply.get("ok") is True and "result" in reply:
            return reply["result"]
        kind = reply.get("kind")
        if kind == "code":   # "Type: message" as the kernel's helper wrote it: student-chosen text
            name, _, message = str(reply.get("error", "")).partition(": ")
            raise StudentCodeError(untrusted_text(name, message))
        if kind == "result":
            raise StudentCodeError("the result holds something the grader cannot receive: only tensors, "
                                   "numbers, strings, None and lists, tuples or dicts of them")
        if kind == "too-big":
            raise SandboxError(f"the result is more than the {self.limits.max_result_bytes // MB} MB allowed")
        raise SandboxError("the kernel returned an unusable reply")

    def _read_reply(self, path: Path) -> dict:
        """Open without following links, regular files only, size-capped, weights_only."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as error:
            raise SandboxError(f"the kernel wrote no result ({error.strerror})") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise SandboxError("the result is not a regular file")
            if info.st_size > self.limits.max_result_bytes:
                raise SandboxError(f"the result is {info.st_size / 1e6:.0f} MB, more than the "
                                   f"{self.limits.max_result_bytes // MB} MB allowed")
            with os.fdopen(os.dup(fd), "rb") as handle:
                data = handle.read(self.limits.max_result_bytes + 1)
        finally:
            os.close(fd)
            try:
                path.unlink()
            except OSError:
                pass
        return decode_reply(data, self.limits)


class KernelHandle(StudentHandle):
    """The ``student`` fixture of the standalone door: every call crosses into the sandbox."""

    def __init__(self, sandbox: Sandbox, assignment: str, seed: int = 0, stand_in_source: str | None = None):
        super().__init__(assignment, seed)
        if stand_in_source is not None:
            self._stand_in_source = stand_in_source
        self.sandbox = sandbox

    def _run(self, code, inputs, stand_ins, stand_in_source, timeout):
        return self.sandbox.call(code, inputs, stand_in_source, stand_ins, self.seed, timeout)


SCORE_LIKE = re.compile(r"\b\d+(\.\d+)?\s*/\s*\d+(\.\d+)?\s*(points?|pts|marks?)\b|\bscore\s*[:=]|"
                        r"all (hidden )?tests passed|full marks", re.IGNORECASE)


def score_like_output(cell_outputs: list[tuple[str, str]]) -> list[Finding]:
    """Printed text that looks like a grade: reported so nobody mistakes it for one."""
    found = []
    for label, text in cell_outputs:
        match = SCORE_LIKE.search(text)
        if match:
            found.append(Finding("score-like-output",
                                 f"cell {label} printed {match.group(0)!r}; printed output is never used "
                                 "for grading", "info", label))
    return found


__all__ = ["Sandbox", "KernelHandle", "Limits", "CellOutcome", "GRADING_ENV", "score_like_output"]
