"""The standalone door's sandbox: the student's notebook runs in a child Jupyter kernel, never here.

One ``Sandbox`` serves one submission. It makes a private work folder whose ``scratch/`` subfolder holds
a copy of the submission and nothing else, starts a real ipykernel there through ``programs/launch.py``,
executes the restored notebook's code cells one by one, and then answers hidden-test snippets for
``KernelHandle`` (the ``StudentHandle`` the parent's pytest run receives).

The parts live in their own modules of this folder: ``process`` (the launcher process, its isolation and
watchdog), ``messages`` (Jupyter messaging with deadlines), ``snippets`` (the request/reply protocol
and ``KernelHandle``), ``scratch`` (files in scratch, never through a link). This module holds the
limits and the policy: which cells run, what a timeout or a death costs, when to restart and replay.

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
  everything), the grader's home and the submissions folder are covered by empty tmpfs, and ``/tmp``,
  ``/var/tmp`` and ``/dev/shm`` by one private writable tmpfs of bounded size; only the Python installation and
  scratch are bound back; every other mount is made read-only (``mount_setattr``, Linux >= 5.12), and a
  new PID namespace with its own ``/proc`` (mounted ``hidepid=invisible`` where the kernel has it, so
  the kernel's uid cannot even list the sandbox's root-owned init) hides the grader's processes (so
  ``/proc/<pid>/root`` cannot lead back to the repository). As root the kernel then runs as a uid of its own (``SANDBOX_UIDS``, one
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
  Python installation reachable by others (every folder on the way ``o+x``); where it is not, no kernel
  starts (a root kernel would either fail every test on files handed to that uid, or read the hidden
  tests), and ``preflight.py`` refuses to grade before any submission, saying what to change. Without
  root nothing is hidden: the student's code can read what the grader's user can read.
- **a cgroup per sandbox** (``cgroups.py``), where the host lets a root grader make one (cgroup v1, as
  here and in CI, or v2): equal CPU weight, ``pids.max``, a hard memory cap above the watchdog's, exact
  CPU accounting of every process the kernel ever ran, and a list of them to kill at teardown. The
  launcher joins it before it forks, so student code never runs outside. Where none can be made (a
  default Docker container, Gradescope, no root) the sandbox runs with what follows alone; the record's
  ``kernel_cgroup`` timing says which.
- **memory**: a watchdog thread sums, every 50 ms, the RSS of the kernel's whole process tree and what
  it keeps in temporary folders (files a tmpfs holds in memory, which no RSS shows; ``tmpfiles.py``,
  measured every 250 ms), and kills it above the cap (default 2 GB). With a mount namespace those folders
  are one private tmpfs of ``Limits.tmp_bytes`` (a quarter of the cap) and ``Limits.scratch_files``
  inodes, which refuses more (ENOSPC); without one they are the host's, and the watchdog counts the files
  the kernel's uid owns there and the deleted ones its processes hold (a teardown removes the rest).
  memfds and SysV IPC, which only a cgroup would count, are refused (ENOSYS, seccomp). ``RLIMIT_AS``
  (twice the cap) stops a single huge allocation at once, ``RLIMIT_FSIZE`` caps any one file it writes,
  ``RLIMIT_NOFILE`` the descriptors the watchdog looks through, ``RLIMIT_CPU`` the kernel's CPU seconds
  (twice the total budget) and, when kernels run as their own uid, ``RLIMIT_NPROC`` stops fork bombs. Fast
  allocators can overshoot the watchdog by a few hundred MB between two samples; where there is a cgroup
  its hard cap (half as much again) bounds that, and its OOM kills read as the watchdog's own message.
  Every process of the sandbox has ``oom_score_adj`` 1000 (the launcher sets it; the watchdog raises it
  again where a kernel without a floor lowered it), so a machine that runs out of memory loses a
  kernel, never a grader.
- **time**: budgets are CPU time, user + system, of the kernel's processes (the cgroup's count, else
  summed over the process tree by the watchdog), so a host busy with other work (or a classmate's hog)
  slows a submission without costing it points: per cell, per call, and one total per submission counted
  from each kernel's readiness (its start is the grader's work). Beside each, a wall-clock ceiling stops
  a kernel that sleeps or blocks instead of computing: ``Limits.wall_factor`` times a cell's or call's
  budget, ``Limits.total_wall_timeout`` for the submission. A timeout sends SIGINT; a kernel that ignores
  it is killed, restarted, and the cells that had completed are executed again so later tests still run.
  The message says which clock ran out ("did not finish within 60 s of CPU time", or so many seconds of
  wall time in which it used only so much CPU), and the record counts each (``cpu_timeouts``,
  ``wall_timeouts``). At most ``Limits.max_restarts`` restarts.
- **warm start** (batches, ``warm_kernels.py``): the launcher is forked from a zygote that has imported
  ipykernel, torch and the notebooks' libraries, instead of starting a fresh interpreter. It runs the same
  steps, so every protection above and below holds. On top of that, the kernel's scratch is bound again
  at a fixed path under its private ``/tmp``, which the zygote's environment names. ``RLIMIT_AS`` adds
  the zygote's address space. The memory watchdog leaves out the launcher and init, which are forks
  holding only the zygote's shared pages. The launcher dies when the grader process closes its lifeline.
  Without a mount namespace, or for a kernel environment other than the zygote's, the kernel starts cold.
- **teardown**: the kernel is PID 2 under an init that dies with the launcher (``PR_SET_PDEATHSIG``),
  so killing the launcher ends every process the student started inside the PID namespace (without one,
  every process running as the sandbox's uid is killed, daemons that left the tree included, and every
  file that uid owns under ``/tmp``, ``/var/tmp`` and ``/dev/shm`` is removed and counted, so nothing is
  relayed to a later kernel); whatever is still in the sandbox's cgroup is killed and the cgroup removed;
  the work folder is removed whatever happened.
- **CPU share**: with a cgroup, one equal weight per sandbox. Without one, every sandbox is one session
  (its launcher's) and seccomp refuses ``setsid`` and ``setpgid`` in every mode, so where the host
  schedules by session (autogroup) a sandbox gets one share however many busy processes it starts. Not
  limited: CPU use below the budgets; a classmate's share of the machine still slows a kernel down, which
  CPU-time budgets make harmless to its score.
- **disk**: the scratch folder stays on the host disk (the grader must read reply files from it, so a
  tmpfs private to the kernel's namespace would not do); the watchdog sums its allocated blocks and counts
  its entries every 250 ms and kills the kernel above ``Limits.scratch_bytes`` or ``Limits.scratch_files``,
  ``RLIMIT_FSIZE`` bounds any one file, and a restart empties scratch back to the submission alone. Overshoot is what the kernel writes in 250 ms.
- **the grader's own writes** into scratch (submission, ``kernel.json``, request files) create new files
  with ``O_EXCL | O_NOFOLLOW`` after removing, without following, whatever the kernel left at that name.
- **replies** are decoded by ``reply.decode_reply`` with limits (archive size from the zip directory,
  value count, nesting, tensor sizes, strides and storage bounds) before any torch operation.
- **text**: everything the kernel reports (exception messages, type names) reaches feedback only through
  ``handle.untrusted_text``: printable ASCII, first line, at most ``KERNEL_TEXT_CHARS`` in all.
- **accelerators**: ``CUDA_VISIBLE_DEVICES`` (and the ROCm equivalents) are empty in the kernel.

Why one module of this length: it is the sandbox's policy in one place (this docstring is the map of
what holds in each mode); the mechanisms are in the folder's other modules.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import tempfile
import time
from pathlib import Path

from assignments.escaping import printable
from assignments.grading.sandbox.limits import Limits
from assignments.grading.sandbox.messages import CellOutcome, CpuBudget, connect, execute, wait_for_ready
from assignments.grading.sandbox.process import (
    NO_NAMESPACES_ENV,
    SANDBOX_UIDS,
    KernelProcess,
    drop_user,
    isolation_finding,
)
from assignments.grading.sandbox.scratch import remove_entry, remove_owned, write_new_file
from assignments.grading.sandbox.snippets import (
    KernelHandle,
    bootstrap_code,
    read_reply,
    reply_value,
    serve_code,
    write_request,
)
from assignments.grading.testkit.errors import SandboxError, StudentTimeout
from assignments.results.model import Finding
from assignments.trees import remove_quietly


class Sandbox:
    """A child kernel for one submission: start, execute cells, serve snippets, tear down."""

    def __init__(
        self, submission: bytes, filename: str = "submission.ipynb", *, limits: Limits | None = None, hide: tuple = ()
    ):
        self.limits = limits or Limits()
        self.submission = submission
        self.filename = Path(filename).name or "submission.ipynb"
        self.hide = tuple(str(Path(p).resolve()) for p in hide)
        self.findings: list[Finding] = []
        self.cell_outputs: list[tuple[str, str]] = []
        self.restarts = 0
        self.broken: str | None = None
        self.start_seconds = 0.0
        self._peak_rss = 0
        self._replay: list[tuple[str, str]] = []
        self._kernel: KernelProcess | None = None
        self._client = None
        self._context = None
        self._needs_restart = False
        self._owner = None
        self.workdir: Path | None = None
        self.deadline = float("inf")  # the submission's wall-clock ceiling (monotonic)
        self.timeouts = {"cpu": 0, "wall": 0}  # executions stopped, by the clock that stopped them
        self._cpu_charged = 0.0  # CPU seconds of the kernels before the current one
        self._cpu_zero: float | None = None  # the current kernel's CPU seconds when it became ready
        self._last_allowance = (0.0, 0.0)  # (CPU, wall) seconds the last student execution was given

    # ---------------------------------------------------------------- lifecycle
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def status(self) -> dict:
        """The isolation the current (or last) kernel obtained."""
        return self._kernel.status if self._kernel else {}

    @property
    def peak_rss(self) -> int:
        return max(self._peak_rss, self._kernel.peak_rss if self._kernel else 0)

    def start(self):
        self.deadline = time.monotonic() + self.limits.total_wall_timeout
        self._owner = drop_user() if self.limits.isolate else None
        began = time.monotonic()
        try:
            self.workdir = Path(tempfile.mkdtemp(prefix="course-sandbox-"))
            self.scratch = self.workdir / "scratch"
            self.scratch.mkdir(mode=0o700)  # its kernel's alone: no classmate's uid may list or read it
            if self._owner:  # the kernel's uid must pass through (not list) the work folder to scratch
                os.chmod(self.workdir, 0o711)
            write_new_file(self.scratch / self.filename, self.submission, self._owner, 0o600)
            if self._owner:
                os.chown(self.scratch, *self._owner)
            self._launch()
        except OSError as error:  # disk full, no temporary folder, launcher could not be executed
            self.close()
            raise SandboxError(
                f"the sandbox could not be prepared on the grading machine "
                f"({type(error).__name__}: {error.strerror or error})"
            ) from None
        except BaseException:
            self.close()
            raise
        self.start_seconds = time.monotonic() - began
        finding = isolation_finding(self.status, self.limits.isolate)
        if finding is not None:
            self.findings.append(finding)

    def close(self):
        """Kill every process of the sandbox, close its zmq sockets and context, remove the work folder and
        whatever its uid left in the shared temporary folders; safe to call twice. Nothing the kernel left
        stops it: each step runs whatever the one before did, and a clean-up that could not finish is a
        finding (the class goes on)."""
        try:
            self._stop_kernel()
        finally:
            self._close_channels()  # a client or context left open hangs the process at exit
            try:
                if self.workdir is not None:
                    problem = remove_quietly(self.workdir)  # iterative: a 1,200-deep scratch is no matter
                    self.workdir = None
                    if problem:
                        self._sweep_problems([f"the work folder could not be removed ({problem})"])
            finally:
                self._sweep_shared_tmp()

    def _sweep_shared_tmp(self):
        """Without a mount namespace the kernel could write to /tmp, /var/tmp and /dev/shm, where a later
        kernel (a classmate's) could pick it up: a stand-in it received, say. Its uid is its own, so every
        entry that uid owns there is its leftover; each is removed and the count is a finding. The sweep
        looks only where that uid could write (``remove_owned``), within bounds, and never raises: what it
        could not do is a finding for staff."""
        uid = self.status.get("uid")
        if not (self.status.get("fallback") or {}).get("dropped") or uid not in SANDBOX_UIDS:
            return
        try:
            removed, problems = remove_owned(uid)
        except Exception as error:  # noqa: BLE001 - a clean-up must never stop the class
            removed, problems = 0, [f"the sweep failed ({type(error).__name__})"]
        if removed:
            self.findings.append(
                Finding(
                    "shared-tmp-removed",
                    f"{removed} file(s) or folder(s) your code left "
                    "in the machine's shared temporary folders were removed",
                    "info",
                )
            )
        self._sweep_problems(problems)

    def _sweep_problems(self, problems: list[str]) -> None:
        if problems:
            shown = "; ".join(printable(p)[:300] for p in problems[:5])
            self.findings.append(
                Finding("sandbox-cleanup-incomplete", f"the sandbox's clean-up was incomplete: {shown}", "warning")
            )

    def remaining(self) -> float:
        """Wall seconds left before the submission's ceiling."""
        return self.deadline - time.monotonic()

    def cpu_used(self) -> float:
        """CPU seconds the submission's kernels have used, each counted from when it was ready: starting
        a kernel is the grader's work, what runs in it afterwards (cells, calls, replays) the student's."""
        current = 0.0
        if self._kernel is not None and self._cpu_zero is not None:
            current = max(0.0, self._kernel.cpu_seconds() - self._cpu_zero)
        return self._cpu_charged + current

    def cpu_left(self) -> float:
        return self.limits.total_timeout - self.cpu_used()

    def used_up(self) -> str | None:
        """Why the submission's time is spent (its CPU budget, or its wall-clock ceiling), or None."""
        used, total = self.cpu_used(), self.limits.total_timeout
        if used >= total:
            return (
                f"the time budget for this submission is used up: your code used {used:.0f} s of CPU "
                f"time, the budget is {total:g} s"
            )
        if self.remaining() <= 0:
            return (
                f"the time budget for this submission is used up: it waited "
                f"{self.limits.total_wall_timeout:g} s of wall time (the ceiling) while your code used only "
                f"{used:.0f} s of its {total:g} s of CPU time"
            )
        return None

    def alive(self) -> bool:
        return self._kernel is not None and self._kernel.alive()

    def _death_reason(self) -> str:
        return self._kernel.death_reason() if self._kernel else ""

    def _launch(self):
        for stale in os.listdir(self.scratch):  # the old kernel's sockets, or whatever it left there
            if stale.startswith("k-") or stale == "kernel.json":
                remove_entry(self.scratch / stale)
        connection = {
            "transport": "ipc",
            "ip": str(self.scratch / "k"),
            "shell_port": 1,
            "iopub_port": 2,
            "stdin_port": 3,
            "control_port": 4,
            "hb_port": 5,
            "key": secrets.token_hex(16),
            "signature_scheme": "hmac-sha256",
            "kernel_name": "python3",
        }
        conn_file = self.scratch / "kernel.json"
        write_new_file(conn_file, json.dumps(connection).encode(), self._owner, 0o600)
        self._kernel = KernelProcess(self.workdir, self.scratch, self.limits, self._owner, self.hide)
        self._kernel.launch(conn_file)
        self._context, self._client = connect(connection)
        budget = min(self.limits.startup_timeout, max(self.remaining(), 1.0))
        if not wait_for_ready(self._client, budget, self.alive):
            reason = self._death_reason() or f"no answer within {budget:g} s"
            # The kernel log is not quoted: after a restart it holds what student code wrote to stderr.
            raise SandboxError(f"the sandboxed kernel did not start ({reason})")
        outcome = self._execute(bootstrap_code(), self.limits.startup_timeout)
        if outcome.status != "ok":
            raise SandboxError(f"the grader's helper could not start in the kernel ({outcome.status} {outcome.error})")
        self._cpu_zero = self._kernel.cpu_seconds()

    def _stop_kernel(self):
        try:
            if self._client is not None:
                try:
                    self._client.stop_channels()
                except Exception:  # noqa: BLE001 - tearing down; nothing to report
                    pass
                self._client = None
            if self._kernel is not None:
                self._kernel.stop()
                self._peak_rss = max(self._peak_rss, self._kernel.peak_rss)
                if self._cpu_zero is not None:
                    self._cpu_charged += max(0.0, self._kernel.cpu_seconds() - self._cpu_zero)
                    self._cpu_zero = None
        finally:
            self._close_channels()

    def _close_channels(self):
        """Close the client's sockets and destroy the zmq context now, explicitly: a context left to the
        garbage collector can block its ``term()`` forever (in pytest, while it formats a failure)."""
        client, self._client = self._client, None
        if client is not None:
            try:
                client.stop_channels()
            except Exception:  # noqa: BLE001 - tearing down; nothing to report
                pass
        context, self._context = self._context, None
        if context is not None:
            context.destroy(linger=0)

    # ---------------------------------------------------------------- executing code
    def _execute(self, code: str, timeout: float, keep_output: bool = False) -> CellOutcome:
        """Run the grader's own ``code`` within ``timeout`` wall seconds and the submission's ceiling."""
        return execute(
            self._client, code, min(timeout, self.remaining()), self.alive, self.limits.max_output_chars, keep_output
        )

    def _allowance(self, budget: float) -> tuple[float, float]:
        """(CPU seconds, wall seconds) for student code whose own budget is ``budget`` CPU seconds: within
        what the submission has left of both."""
        return min(budget, self.cpu_left()), min(budget * self.limits.wall_factor, self.remaining())

    def _run_student(self, code: str, budget: float, keep_output: bool = False) -> CellOutcome:
        """Run student code (a cell, a replayed cell, a test's call) within ``budget`` CPU seconds of the
        kernel's processes and the wall-clock ceiling beside it."""
        cpu, wall = self._last_allowance = self._allowance(budget)
        outcome = execute(
            self._client,
            code,
            wall,
            self.alive,
            self.limits.max_output_chars,
            keep_output,
            CpuBudget(cpu, self._kernel.cpu_seconds),
        )
        if outcome.status == "timeout":
            self.timeouts[outcome.clock] += 1
        return outcome

    def _overrun(self, outcome: CellOutcome, budget: float) -> str:
        """How the last execution timed out, in the student's terms: which clock, and how far it got."""
        cpu, wall = self._last_allowance
        if outcome.clock == "cpu":
            if cpu < budget:
                return (
                    f"did not finish within the {cpu:.1f} s of CPU time this submission had left "
                    f"(the budget is {self.limits.total_timeout:g} s in all)"
                )
            return f"did not finish within {budget:g} s of CPU time (it used {outcome.cpu_s:.1f} s)"
        ceiling = (
            f"this submission's wall-clock ceiling of {self.limits.total_wall_timeout:g} s"
            if wall < budget * self.limits.wall_factor
            else f"the wall-clock ceiling of {self.limits.wall_factor:g} times its CPU budget"
        )
        return (
            f"did not finish within {outcome.wall_s:.0f} s of wall time, in which it used only "
            f"{outcome.cpu_s:.1f} s of its {budget:g} s of CPU time: it waited instead of computing, "
            f"past {ceiling}"
        )

    def _recover(self, why: str):
        """After a timeout: interrupt; if the kernel ignores it, restart it and replay the notebook."""
        if self.alive():
            self._kernel.interrupt()
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
        spent = self.used_up() or (self.remaining() <= 1 and "the time budget for this submission is used up")
        if spent:
            self.broken = spent
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
            outcome = self._run_student(source, self.limits.cell_timeout)
            if outcome.status in ("timeout", "died"):
                self.broken = f"cell {label} did not complete when the notebook was executed again"
                self._stop_kernel()
                return
        self._needs_restart = False

    def execute_cells(self, cells: list[tuple[str, str]]) -> None:
        """Execute the notebook's cells in order; every failure becomes a finding, the next cell runs."""
        for label, source in cells:
            if self.broken:
                self.findings.append(
                    Finding("cell-skipped", f"cell {label} was not run: {self.broken}", "error", label)
                )
                continue
            if self._needs_restart:
                self.restart("the kernel died")
                if self.broken:
                    continue
            spent = self.used_up()
            if spent:
                self.broken = spent
                self.findings.append(Finding("time-budget", f"cell {label} was not run: {self.broken}", "error", label))
                continue
            outcome = self._run_student(source, self.limits.cell_timeout, keep_output=True)
            self.cell_outputs.append((label, outcome.output))
            if outcome.truncated:
                self.findings.append(
                    Finding(
                        "output-truncated",
                        f"cell {label} printed more than {self.limits.max_output_chars} "
                        "characters; the rest was discarded",
                        "info",
                        label,
                    )
                )
            if outcome.status == "ok":
                self._replay.append((label, source))
            elif outcome.status == "error":
                self._replay.append((label, source))
                self.findings.append(Finding("cell-error", f"cell {label} raised {outcome.error}", "warning", label))
            elif outcome.status == "timeout":
                self.findings.append(
                    Finding(
                        "cell-timeout",
                        f"cell {label} {self._overrun(outcome, self.limits.cell_timeout)}; "
                        "it was stopped and is skipped from here on",
                        "error",
                        label,
                    )
                )
                self._recover(f"cell {label} timed out")
            else:
                reason = self._death_reason() or "the kernel died"
                killed = self._kernel.killed if self._kernel else None
                code = "memory-limit" if killed and "memory" in killed else "kernel-died"
                self.findings.append(
                    Finding(
                        code, f"cell {label}: {reason}; the cell is skipped and the kernel restarted", "error", label
                    )
                )
                self._needs_restart = True

    # ---------------------------------------------------------------- snippets
    def call(self, code: str, inputs: dict, stand_in_source: str, stand_ins: tuple, seed: int, timeout: float):
        """One hidden-test snippet run in the student's namespace; its plain-data result."""
        if self._needs_restart and not self.broken:
            self.restart("the kernel died during an earlier test")
        if self.broken:
            raise SandboxError(self.broken)
        spent = self.used_up()
        if spent:
            raise StudentTimeout(spent)
        token = secrets.token_hex(12)
        request_path = self.scratch / f"call-{token}.in"
        reply_path = self.scratch / f"call-{token}.out"
        write_request(request_path, code, inputs, stand_in_source, stand_ins, seed, self._owner)
        limit = min(timeout, self.limits.call_timeout)
        outcome = self._run_student(serve_code(request_path, reply_path, self.limits.max_result_bytes), limit)
        try:
            request_path.unlink()
        except OSError:
            pass
        if outcome.status == "timeout":
            overrun = self._overrun(outcome, limit)
            self._recover("a test call timed out")
            raise StudentTimeout(f"your code {overrun}")
        if outcome.status == "died":
            reason = self._death_reason() or "the kernel died"
            self._needs_restart = True
            raise SandboxError(reason)
        if outcome.status == "error":
            raise SandboxError(
                f"the grader's helper in your kernel failed ({outcome.error}); "
                "did your code replace sys.modules, torch or builtins?"
            )
        return reply_value(self._read_reply(reply_path), self.limits)

    def _read_reply(self, path: Path) -> dict:
        return read_reply(path, self.limits)


SCORE_LIKE = re.compile(
    r"\b\d+(\.\d+)?\s*/\s*\d+(\.\d+)?\s*(points?|pts|marks?)\b|\bscore\s*[:=]|"
    r"all (hidden )?tests passed|full marks",
    re.IGNORECASE,
)


def score_like_output(cell_outputs: list[tuple[str, str]]) -> list[Finding]:
    """Printed text that looks like a grade: reported so nobody mistakes it for one."""
    found = []
    for label, text in cell_outputs:
        match = SCORE_LIKE.search(text)
        if match:
            found.append(
                Finding(
                    "score-like-output",
                    f"cell {label} printed {match.group(0)!r}; printed output is never used for grading",
                    "info",
                    label,
                )
            )
    return found


__all__ = ["Sandbox", "KernelHandle", "CellOutcome", "NO_NAMESPACES_ENV", "score_like_output"]
