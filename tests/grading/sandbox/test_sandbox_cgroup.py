"""A cgroup per sandbox where the host delegates one (issue 23, item 3), with namespaces and in the forced
fallback (root, cgroups left on): limits set, every process of the kernel inside from the start, its CPU
time counted exactly (a daemon that left the kernel's tree included), its OOM kills reported with the
memory watchdog's message, and nothing left at teardown. CI (root, writable cgroup v1 hierarchies, as
this machine) must give one: there a missing cgroup fails these tests instead of skipping them.

Also, without a sandbox: the unified (v2) hierarchy's code path where one is mounted, and the sweep of a
cgroup whose grader was killed before its teardown.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assignments.grading.sandbox import cgroups
from assignments.grading.sandbox import process as kernel_process
from assignments.grading.sandbox.cgroups import SandboxCgroup
from assignments.grading.sandbox.limits import Limits
from assignments.grading.sandbox.session import KernelHandle, Sandbox
from tests.fixtures import fallback
from tests.helpers import isolation_unavailable

MODES = ("namespaces", "no-namespaces")
LIMITS = Limits(
    cell_timeout=15, call_timeout=10, interrupt_grace=1, total_timeout=60, max_restarts=0, memory_bytes=768 * 2**20
)
# A grandchild that leaves the kernel's tree at once (its parent exits), burns 1.5 s of CPU time, then
# waits to be killed: in the fallback it is reparented outside the sandbox, where only the cgroup sees it.
DAEMON = """
import os, time
if os.fork() == 0:
    if os.fork() == 0:
        _end = time.process_time() + 1.5
        while time.process_time() < _end:
            pass
        time.sleep(600)
    os._exit(0)
os.wait()
"""


def cgroup_or_skip(mode):
    if mode == "no-namespaces" and os.geteuid() != 0:
        isolation_unavailable(fallback.ROOT_ONLY)
    probe = SandboxCgroup.create(kernel_process.CGROUP_PIDS, 2**30)
    if probe is None:
        isolation_unavailable(
            "no cgroup hierarchy here lets the grader make a child cgroup (not delegated, or read-only)"
        )
    probe.remove()


@pytest.fixture
def box(mode):
    cgroup_or_skip(mode)
    with fallback.mode(mode):
        sandbox = Sandbox(b'{"cells": []}', "s.ipynb", limits=LIMITS)
        sandbox.start()
        yield sandbox
        sandbox.close()


@pytest.mark.parametrize("mode", MODES)
def test_the_kernel_runs_in_a_cgroup_of_its_own_with_its_limits(box, mode):
    group = box._kernel.cgroup
    assert box.status["cgroup"] and group is not None, box.status
    assert box.status["fallback"]["dropped"] if mode == "no-namespaces" else box.status["pid"]
    kernel_pid = KernelHandle(box, "toy").run("import os\nresult = os.getpid()")
    assert mode == "namespaces" or kernel_pid in group.pids()  # (in a PID namespace it has another pid)
    assert len(group.pids()) >= 2, group.pids()  # launcher, init, kernel (the fallback has no init)
    settings = {
        "pids": ("pids.max", kernel_process.CGROUP_PIDS),
        "memory": (
            "memory.limit_in_bytes" if group.version == 1 else "memory.max",
            kernel_process.cgroup_memory_cap(LIMITS.memory_bytes),
        ),
        "cpu": (
            "cpu.shares" if group.version == 1 else "cpu.weight",
            cgroups.CPU_SHARES if group.version == 1 else cgroups.CPU_WEIGHT,
        ),
    }
    for controller, (filename, value) in settings.items():
        if controller in group.folders:
            assert int((group.folders[controller] / filename).read_text()) == value, controller


@pytest.mark.parametrize("mode", MODES)
def test_a_daemon_is_charged_its_cpu_time_and_removed_with_the_cgroup(box, mode):
    group = box._kernel.cgroup
    folders = group.unique_folders
    box.execute_cells([("daemon", DAEMON)])
    assert not box.findings or all(f.code == "sandbox-degraded" for f in box.findings), box.findings
    end = time.monotonic() + 30
    while box.cpu_used() < 1.5 and time.monotonic() < end:
        time.sleep(0.1)
    assert box.cpu_used() >= 1.5
    box.close()
    assert not any(folder.exists() for folder in folders)
    assert box.cpu_used() >= 1.5  # still known after teardown, for the record


@pytest.mark.parametrize("mode", MODES)
def test_an_oom_kill_in_the_cgroup_reads_as_the_memory_limit(mode, monkeypatch):
    """With the cgroup's cap below the watchdog's (here only), the cgroup is the one that stops a kernel
    that fills memory: the student reads the watchdog's message all the same."""
    cgroup_or_skip(mode)
    monkeypatch.setattr(kernel_process, "cgroup_memory_cap", lambda memory: memory // 3)
    with fallback.mode(mode):
        sandbox = Sandbox(b'{"cells": []}', "s.ipynb", limits=LIMITS)
        sandbox.start()
        try:
            sandbox.execute_cells([("fill", "blob = b'x' * (400 * 2 ** 20)")])
        finally:
            sandbox.close()
    memory = [f for f in sandbox.findings if f.code == "memory-limit"]
    assert memory and "used more than 0.75 GB of memory" in memory[0].message, sandbox.findings


def test_no_cgroup_where_switched_off(monkeypatch):
    monkeypatch.setenv(cgroups.NO_CGROUP_ENV, "1")
    assert SandboxCgroup.create(100, 2**30) is None


def test_a_cgroup_left_by_a_killed_grader_is_swept():
    made = SandboxCgroup.create(10, 2**30)
    if made is None:
        pytest.skip("no cgroup can be made here")
    parent = made.unique_folders[0].parent
    made.remove()
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    stale = parent / f"{cgroups.PREFIX}{gone.stdout.strip()}-left"
    stale.mkdir()
    fresh = SandboxCgroup.create(10, 2**30)
    try:
        assert not stale.exists()
    finally:
        fresh.remove()
        if stale.exists():
            stale.rmdir()


def test_the_unified_hierarchy_counts_cpu_and_kills_what_is_left():
    """cgroup v2 (here mounted beside the v1 controllers, with none of its own): CPU accounting and
    cgroup.kill hold in every v2 cgroup, controllers or not."""
    unified = [h for h in cgroups.discover() if h.version == 2]
    if not unified:
        pytest.skip("no cgroup v2 hierarchy is mounted here")
    group = SandboxCgroup.make(unified, 10, 2**30)
    if group is None:
        pytest.skip("the cgroup v2 hierarchy here is not writable")
    folder = group.unique_folders[0]
    busy = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass\ntime.sleep(600)"
    child = subprocess.Popen([sys.executable, "-c", f"import os\nos.read(0, 1)\n{busy}"], stdin=subprocess.PIPE)
    try:
        Path(group.procs_files()[0]).write_text(str(child.pid))
        child.stdin.write(b"x")
        child.stdin.flush()
        end = time.monotonic() + 20
        while group.cpu_seconds() < 0.5 and time.monotonic() < end:
            time.sleep(0.05)
        assert group.cpu_seconds() >= 0.5 and group.pids() == {child.pid}
        group.remove()
        assert child.wait(timeout=10) == -signal.SIGKILL and not folder.exists()
    finally:
        child.kill()
        group.remove()
