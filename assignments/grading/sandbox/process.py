"""One launch of the sandboxed kernel as a process: the isolation it asks ``programs/launch.py`` for (and
the cgroup it makes for it, ``cgroups.py``), the environment it runs in, what the launcher reports it
obtained, the memory and disk watchdog, the CPU time the kernel's processes use (what the student's time
budgets count), and the teardown of every process the student started. (What the isolation is and what
it depends on is told in ``session.py``'s docstring.)

Why one module of this length: launching, watching and tearing down share the process tree and its
cgroup; each is a few functions over the same ``KernelProcess``.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import resource
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from assignments.course import REPO
from assignments.grading.environment import GRADING_ENV
from assignments.grading.sandbox.cgroups import SandboxCgroup
from assignments.grading.sandbox.scratch import python_roots, tree_usage
from assignments.grading.sandbox.tmpfiles import private_tmpfs_bytes, shared_tmp_usage
from assignments.grading.sandbox.warm_kernels import ForkedLauncher, warm_scratch, zygote_socket
from assignments.results.model import Finding

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
SANDBOX_UIDS = range(0x60000000, 0x60000000 + 2**20)
LAUNCHER = Path(__file__).parent / "programs" / "launch.py"
NPROC = 512  # processes and threads of one sandbox's uid (RLIMIT_NPROC counts threads too)
# Open files of one kernel process: each may hold a deleted temporary file, which the watchdog finds by
# looking through them all (tmpfiles.held_deleted); a kernel needs a few dozen.
NOFILE = 4096
# The oom_score_adj of every process of a sandbox (the launcher sets it, the watchdog keeps it): the most
# the kernel allows, so the OOM killer ends a sandbox's process before any grader's.
OOM_SCORE_ADJ_MAX = 1000
# pids.max of a sandbox's cgroup: NPROC for the kernel's uid, and its launcher and init (root) beside it
CGROUP_PIDS = NPROC + 8
MB = 1024 * 1024


def cgroup_memory_cap(memory_bytes: int) -> int:
    """The cgroup's hard memory cap: above the watchdog's (``Limits.memory_bytes``, resident memory and
    temporary files summed every 50 ms) by half, so the watchdog still stops the usual blow-up with its
    own message, while the cgroup stops what a fast allocator gains between two samples and what the
    watchdog cannot see (every page the kernel's processes allocate is charged to it, tmpfs pages
    included). Its OOM kills get the watchdog's message too (``KernelProcess.oom_message``)."""
    return memory_bytes + memory_bytes // 2


def drop_user() -> tuple[int, int] | None:
    """The unprivileged uid and gid a root grader runs this sandbox's kernel as, or None when not root."""
    if os.geteuid() != 0:
        return None
    uid = SANDBOX_UIDS[secrets.randbelow(len(SANDBOX_UIDS))]
    return uid, uid


def namespaces_allowed() -> bool:
    return os.environ.get(NO_NAMESPACES_ENV, "") != "1"


def namespaces_available() -> bool:
    """Whether a launcher here would get a mount namespace (asked of a throwaway child, as it would)."""
    if not namespaces_allowed():
        return False
    import ctypes

    flags = 0x00020000 | (0 if os.geteuid() == 0 else 0x10000000)  # CLONE_NEWNS, CLONE_NEWUSER
    child = os.fork()
    if child == 0:
        os._exit(0 if ctypes.CDLL(None, use_errno=True).unshare(ctypes.c_int(flags)) == 0 else 1)
    return os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0


def shared_kernel_uid() -> str | None:
    """Why the kernels of concurrent sandboxes would run as one uid with nothing hidden between them
    (so one could read a classmate's scratch), or None where each gets a uid or a namespace of its own.
    (Where the kernels' uids cannot reach Python, no kernel starts: ``preflight.py`` says so.)"""
    if namespaces_available() or os.geteuid() == 0:
        return None
    return "without namespaces and without root every kernel runs as the grader's uid"


def kernel_env(scratch: Path, limits) -> dict:
    """The kernel's whole environment: nothing of the grader's, caches and config inside scratch."""
    scratch = str(scratch)
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": scratch,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TMPDIR": "/tmp" if limits.isolate else scratch,
        "PYTHONNOUSERSITE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": f"{scratch}/.config/matplotlib",
        "IPYTHONDIR": f"{scratch}/.ipython",
        "JUPYTER_CONFIG_DIR": f"{scratch}/.jupyter",
        "JUPYTER_DATA_DIR": f"{scratch}/.local/share/jupyter",
        "JUPYTER_RUNTIME_DIR": f"{scratch}/.local/share/jupyter/runtime",
        "JUPYTER_PLATFORM_DIRS": "1",
        "XDG_CACHE_HOME": f"{scratch}/.cache",
        "HF_HOME": f"{scratch}/.cache/huggingface",
        "TOKENIZERS_PARALLELISM": "false",
        "OMP_NUM_THREADS": str(limits.threads),
        "MKL_NUM_THREADS": str(limits.threads),
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        # the sandbox uid has no passwd entry: name it, so getpass and friends need no lookup
        "USER": "student",
        "LOGNAME": "student",
    }
    env.update(GRADING_ENV)
    return env


@functools.lru_cache(maxsize=1)
def mapped_library_bytes() -> int:
    """Bytes of the shared libraries that importing torch maps into a kernel's address space.

    A CUDA build of torch (what `pip install torch` gives on Linux, and what Colab's runtimes carry) maps
    its CUDA libraries when imported, even on a machine without a GPU: 4.6 GB of address space for torch
    2.9.0+cu128 against 0.7 GB for the CPU build, measured. That is address space, not memory (the pages
    are never touched on a CPU), so RLIMIT_AS gets it on top of its room for the student's own work, or
    a kernel could not even import torch. Summed from the library files, without importing torch here."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return 0
    site = Path(spec.origin).parent.parent
    total = 0
    for folder in (site / "torch" / "lib", site / "nvidia", site / "triton"):
        if folder.is_dir():
            total += sum(f.stat().st_size for f in folder.rglob("*.so*") if f.is_file())
    return total


def nofile_limit() -> int:
    """``NOFILE``, or the grader's own hard limit where that is lower (only root may raise it)."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return NOFILE if hard == resource.RLIM_INFINITY else min(NOFILE, hard)


class KernelProcess:
    """The launcher (and under it the kernel) for one start of a sandbox; ``stop`` ends them all."""

    def __init__(self, workdir: Path, scratch: Path, limits, owner, hide: tuple):
        self.workdir, self.scratch, self.limits, self.owner, self.hide = workdir, scratch, limits, owner, hide
        self.proc: subprocess.Popen | ForkedLauncher | None = None
        self.status: dict = {}  # the isolation the launcher obtained
        self.killed: str | None = None  # why the watchdog stopped the kernel
        self.peak_rss = 0
        self.tmp_bytes = 0  # what the kernel keeps in temporary folders (tmpfiles.py), as last measured
        self.cgroup: SandboxCgroup | None = None
        self._stderr_tail = b""
        self._watch_stop = threading.Event()
        # CPU seconds seen per process of the tree (where there is no cgroup to count them), and their sum
        self._cpu_seen: dict[int, float] = {}
        self._cpu_total = 0.0

    def config(self, conn_file: Path) -> dict:
        hide = {str(REPO), os.path.expanduser("~"), *self.hide, *HIDDEN_SYSTEM_PATHS}
        cap = self.limits.memory_bytes
        return {
            "isolate": self.limits.isolate,
            "namespaces": namespaces_allowed(),
            "scratch": str(self.scratch),
            "hide": sorted(h for h in hide if h and h != "/"),
            "private_tmp": sorted({tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"}),
            "tmp_bytes": self.limits.tmp_bytes,
            "tmp_files": self.limits.scratch_files,
            "keep": python_roots() + [str(self.scratch)],
            "drop_to": self.owner,
            "oom_score_adj": OOM_SCORE_ADJ_MAX,
            "cgroup_procs": self.cgroup.procs_files() if self.cgroup else [],
            "rlimits": {
                "RLIMIT_AS": max(2 * cap, cap + 2 * 1024**3) + mapped_library_bytes(),
                "RLIMIT_FSIZE": self.limits.max_result_bytes + 16 * MB,
                "RLIMIT_CORE": 0,
                "RLIMIT_NOFILE": nofile_limit(),
                "RLIMIT_CPU": int(2 * self.limits.total_timeout) + 10,
                # per user: only meaningful (and harmless) for the dedicated unprivileged user
                # a few hundred: ipykernel needs about a dozen threads, and 4096 per sandbox let
                # eight kernels take every PID of a 32,768-PID host
                **({"RLIMIT_NPROC": NPROC} if self.owner else {}),
            },
            # relative to scratch, where the kernel starts: any process may read another's argv (/proc)
            "argv": [
                sys.executable,
                "-m",
                "ipykernel_launcher",
                "-f",
                conn_file.name,
                "--HistoryManager.enabled=False",
            ],
            "env": kernel_env(self.scratch, self.limits),
        }

    def launch(self, conn_file: Path, program: list[str] | None = None) -> None:
        """Start the launcher (forked from the batch's warm zygote where there is one and it can, else a
        fresh interpreter), read its isolation report and start the watchdog. ``program``: the command
        line of another program to run in the kernel's place, under the same protections (the preflight's
        probe, ``preflight.py``); it starts cold."""
        if self.limits.isolate:
            self.cgroup = SandboxCgroup.create(CGROUP_PIDS, cgroup_memory_cap(self.limits.memory_bytes))
        config = self.config(conn_file)
        zygote = None if program else zygote_socket()
        if program:
            config["argv"] = list(program)
        # A zygote that binds scratch needs the kernel's mount namespace; one that names scratch itself does not.
        warm = zygote and config["isolate"] and (config["namespaces"] or warm_scratch(zygote) is None)
        if not (warm and self._start(config, zygote)):
            self._start(config, None)
        if self.cgroup is not None and not self.status.get("cgroup"):
            self.cgroup.remove()  # the launcher could not join it: it would count and hold nothing
            self.cgroup = None
        threading.Thread(target=self._watch, daemon=True).start()

    def _start(self, config: dict, zygote: str | None) -> bool:
        """One start of the launcher; False when a warm start was refused (nothing is left running)."""
        read_fd, write_fd = os.pipe()
        config = dict(config, status_fd=write_fd)
        if zygote:
            scratch = warm_scratch(zygote) or self.scratch
            config.update(env=kernel_env(scratch, self.limits), warm_scratch=str(scratch))
            try:
                self.proc = ForkedLauncher.fork(zygote, config, write_fd)
            except (OSError, ValueError):
                os.close(read_fd)
                os.close(write_fd)
                return False
        else:
            # The configuration goes through a pipe, not argv: without a PID namespace every uid can read
            # every process's command line, and the launcher's (and its init's) would name the scratch.
            config_read, config_write = os.pipe()
            self.proc = subprocess.Popen(
                [sys.executable, "-I", str(LAUNCHER), str(config_read)],
                cwd=str(self.workdir),
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(write_fd, config_read),
                start_new_session=True,
            )
            os.close(config_read)
            with open(config_write, "wb") as pipe:  # the launcher reads it whole before anything else
                pipe.write(json.dumps(config).encode())
        os.close(write_fd)
        threading.Thread(target=self._read_stderr, args=(self.proc.stdout,), daemon=True).start()
        self.status = self._read_status(read_fd)
        if zygote and not self.status.get("warm"):
            self._kill_tree()
            self.proc.stdout.close()
            self.proc = None
            return False
        return True

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
                    if self.proc.poll() is not None:
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

    def log(self) -> str:
        return self._stderr_tail.decode("utf-8", "replace")

    def _tree(self) -> list:
        try:
            root = psutil.Process(self.proc.pid)
            return [root] + root.children(recursive=True)
        except psutil.Error:
            return []

    def _counted(self, tree: list) -> list:
        """The processes whose memory counts against the cap: the whole tree, except, for a warm kernel,
        the launcher and init, which are forks of the zygote holding only its shared library pages."""
        if not isinstance(self.proc, ForkedLauncher) or not tree:
            return tree
        try:
            ours = {tree[0].pid} | {child.pid for child in tree[0].children()}
        except psutil.Error:
            return tree
        return [member for member in tree if member.pid not in ours]

    def cpu_seconds(self) -> float:
        """User + system CPU seconds this kernel's processes have used since the launcher started: the
        cgroup's count where there is one (every process it ever held, exactly); otherwise the sum of the
        last figure the watchdog read for each process it saw in the tree, which misses a process that
        lived less than one sample (50 ms) and whatever one does after it left the tree (a daemon, in the
        fallback). Those are what the wall-clock ceilings are for. Still answers after ``stop``."""
        if self.cgroup is not None:
            counted = self.cgroup.cpu_seconds()
            if counted is not None:
                self._cpu_total = counted
        return self._cpu_total

    def _count_cpu(self, tree: list) -> None:
        """Add what each process of the tree used since the last sample (the watchdog's, without a cgroup).
        A figure lower than last time is a new process under a reused pid: it counts from zero."""
        for member in tree:
            try:
                times = member.cpu_times()
            except psutil.Error:
                continue
            now = times.user + times.system
            last = self._cpu_seen.get(member.pid, 0.0)
            self._cpu_total += now - last if now >= last else now
            self._cpu_seen[member.pid] = now

    def _over_disk(self) -> bool:
        used, files = tree_usage(self.scratch, self.limits.scratch_files)
        if used <= self.limits.scratch_bytes and files <= self.limits.scratch_files:
            return False
        self.killed = (
            f"your code wrote more than {self.limits.scratch_bytes // MB} MB of files "
            if used > self.limits.scratch_bytes
            else f"your code made more than {self.limits.scratch_files} files "
        ) + "and the kernel was stopped"
        return True

    def _over_tmp_files(self, tree: list) -> bool:
        """Measure what the kernel keeps in temporary folders (``tmpfiles.py``), which the memory check adds
        to its processes' resident memory. True, with the reason, where it made more entries there than
        ``Limits.scratch_files`` (the fallback's shared folders: a private tmpfs refuses them itself)."""
        path = self.status.get("tmpfs")
        if path:
            self.tmp_bytes = private_tmpfs_bytes(self.proc.pid, path)
            return False
        uid, most = self.status.get("uid"), self.limits.scratch_files
        if not (self.status.get("fallback") or {}).get("dropped") or uid not in SANDBOX_UIDS:
            return False  # the kernel has no uid of its own that tells its files apart
        self.tmp_bytes, entries = shared_tmp_usage(uid, [member.pid for member in tree], max_entries=most)
        if entries <= most:
            return False
        self.killed = f"your code made more than {most} files in temporary folders and the kernel was stopped"
        return True

    def _keep_first_for_the_oom_killer(self, tree: list) -> None:
        """Raise again the ``oom_score_adj`` of any process of the sandbox that lowered its own. Only a
        launcher with ``CAP_SYS_RESOURCE`` sets a floor the kernel cannot go below, and a container's root
        often lacks it (Docker's default set, this machine); raising another's score needs no privilege
        beyond writing its file, which the grader may (its own uid, or root)."""
        if not self.status.get("oom_score_adj"):
            return
        pids = {member.pid for member in tree} | (self.cgroup.pids() if self.cgroup else set())
        for pid in pids:
            path = f"/proc/{pid}/oom_score_adj"
            try:
                with open(path) as score:
                    if int(score.read()) >= OOM_SCORE_ADJ_MAX:
                        continue
                with open(path, "w") as score:
                    score.write(str(OOM_SCORE_ADJ_MAX))
            except (OSError, ValueError):
                continue

    def oom_message(self) -> str:
        return (
            f"your code used more than {self.limits.memory_bytes / 1024**3:g} GB of memory (its processes and "
            "its files in temporary folders together) and the kernel was stopped"
        )

    def _oom_killed(self) -> bool:
        """Whether the cgroup's memory cap made the kernel's OOM killer end one of the sandbox's processes:
        the same breach as the watchdog's, caught where the watchdog was too slow, with the same message."""
        if self.cgroup is None or not self.cgroup.oom_kills():
            return False
        self.killed = self.killed or self.oom_message()
        return True

    def _watch(self):
        """Memory watchdog over the kernel's whole process tree and its temporary files, disk watchdog over
        its scratch, and (with no cgroup to count it) the tree's CPU time."""
        proc, stop, ticks = self.proc, self._watch_stop, 0
        count_cpu = self.cgroup is None or self.cgroup.cpu_seconds() is None
        while not stop.is_set() and proc.poll() is None:
            ticks += 1
            tree = self._tree()
            if ticks % 5 == 0 and (self._over_disk() or self._over_tmp_files(tree) or self._oom_killed()):
                self._kill_tree()
                return
            if ticks % 5 == 0:
                self._keep_first_for_the_oom_killer(tree)
            if count_cpu:
                self._count_cpu(tree)
            total = 0
            for member in self._counted(tree):
                try:
                    total += member.memory_info().rss
                except psutil.Error:
                    pass
            self.peak_rss = max(self.peak_rss, total)
            if total + self.tmp_bytes > self.limits.memory_bytes:
                self.killed = self.oom_message()
                self._kill_tree()
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

    def _kill_tree(self):
        for member in reversed(self._tree()):
            try:
                member.kill()
            except psutil.Error:
                pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def interrupt(self) -> None:
        try:
            os.kill(self.proc.pid, signal.SIGINT)
        except OSError:
            pass

    def stop(self) -> None:
        """Kill the kernel and everything it started; safe to call twice."""
        self._watch_stop.set()
        if self.proc is None:
            self._release_cgroup()  # made, but the launcher never started
            return
        self._kill_tree()
        if self.status.get("fallback", {}).get("dropped"):
            # before closing stdout: a daemon holding that pipe would block the close forever
            self._kill_uid(self.status.get("uid"))
        self._release_cgroup()
        if self.proc.stdout:
            self.proc.stdout.close()
        if isinstance(self.proc, ForkedLauncher):
            self.proc.release()
        self.proc = None

    def _release_cgroup(self) -> None:
        """Its last CPU figure and OOM count are kept; then whatever is still in it (a daemon that left the
        tree) is killed and the cgroup removed."""
        if self.cgroup is None:
            return
        self._oom_killed()
        self.cpu_seconds()
        self.cgroup.remove()
        self.cgroup = None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def death_reason(self) -> str:
        if self.status.get("refused"):
            return f"the sandbox would not start the kernel: {self.status['refused']}"
        if self.killed or self._oom_killed():
            return self.killed
        if self.proc is None or self.proc.poll() is None:
            return ""
        code = self.proc.returncode
        if code > 128 or code < 0:
            number = code - 128 if code > 128 else -code
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = f"signal {number}"
            return f"the kernel was killed ({name})"
        return f"the kernel exited with status {code}"


def isolation_finding(status: dict, isolate: bool) -> Finding | None:
    """A ``sandbox-degraded`` finding naming every protection the machine did not give, or None."""
    if not isolate:
        return Finding("sandbox-degraded", "sandbox isolation was switched off", "info")
    network = status.get("network") or status.get("seccomp")
    missing = [
        what
        for held, what in (
            (network, "network isolation"),
            (status.get("mount"), "hidden files"),
            (status.get("pid"), "private process list"),
            (status.get("proc"), "private /proc"),
            (status.get("readonly_root"), "read-only file system"),
            (status.get("uncounted_memory_refused"), "memfds and SysV IPC refused"),
            (status.get("oom_score_adj"), "the OOM killer's first choice"),
        )
        if not held
    ]
    if not missing:
        return None
    details = []
    fallback = status.get("fallback") or {}
    if fallback.get("dropped"):
        details.append(
            f"without namespaces the kernel ran as uid {status.get('uid')}, kept from the "
            "grader's files by permissions alone"
            + (" and from the network by a seccomp filter (Unix sockets only)" if status.get("seccomp") else "")
        )
        if fallback.get("readable"):
            details.append(
                "folders that should be hidden could be entered by that uid (their files readable "
                "wherever their own modes allow): " + ", ".join(fallback["readable"])
            )
        if fallback.get("writable"):
            details.append("shared folders it could write: " + ", ".join(fallback["writable"]))
        details.append("it could list every process and read world-readable system files")
    details += status.get("notes", [])
    text = "; ".join(details)
    text = text[:1500] + "..." if len(text) > 1500 else text
    return Finding(
        "sandbox-degraded",
        f"this machine could not give the sandbox: {', '.join(missing)}{f' ({text})' if text else ''}",
        "info",
    )
