"""Memory the sandbox used not to count (issue #31, item 7): files in temporary folders, which a tmpfs keeps
in memory where no process's resident memory shows them, and the OOM killer's choice between a kernel and
a grader.

In both modes (namespaces as this machine gives them, with a cgroup where it lets the grader make one, as
in CI; and the forced no-namespace fallback without a cgroup, as on Gradescope), under a 512 MB budget:
- a kernel that writes files to every temporary folder it can find is refused (ENOSPC: its private tmpfs
  is full) or stopped by its memory limit, within the budget, and what it keeps there is counted;
- every process of the kernel is the OOM killer's first choice (``oom_score_adj`` 1000) and cannot keep a
  lower score, while the grader's stays below;
- the allocations no file system or process shows (memfds, SysV shared memory) are refused.

Without a sandbox: the temporary folders' size fits in the budget, the fallback's count finds a uid's
files where it could have written them and deleted files still held open or mapped, and a kernel keeps no
capability where it never execs (a warm one in a user namespace could otherwise mount a tmpfs of any size).

The other two combinations would repeat the same code: the private tmpfs and the watchdog's count do not
depend on the cgroup, which only adds its cap above the watchdog's (``test_sandbox_cgroup.py``).

The attack bounds itself (it stops at the budget, which a working sandbox never lets it reach), so a
broken sandbox fails the test without endangering the machine.
"""

import errno
import importlib.util
import mmap
import os
import time

import pytest

from assignments.grading.sandbox import cgroups, tmpfiles
from assignments.grading.sandbox import process as kernel_process
from assignments.grading.sandbox.limits import MB, Limits
from assignments.grading.sandbox.session import KernelHandle, Sandbox
from tests.fixtures import fallback
from tests.helpers import isolation_unavailable

# 512 MB: the kernel's processes hold about 300 MB once the grader's runtime (torch) is imported.
LIMITS = Limits(
    cell_timeout=30,
    call_timeout=10,
    interrupt_grace=1,
    total_timeout=90,
    max_restarts=0,
    memory_bytes=512 * MB,
    scratch_bytes=64 * MB,
    max_result_bytes=16 * MB,  # so RLIMIT_FSIZE (this plus 16 MB) cuts the attack's files at 32 MB
)
# (mode, cgroup): None leaves the cgroup to the machine (CI's makes one), False makes none
MODES = {"namespaces": ("namespaces", None), "fallback-no-cgroup": ("no-namespaces", False)}

PROBE = """
import ctypes, errno, os, subprocess, time
def _score():
    with open("/proc/self/oom_score_adj") as handle:
        return int(handle.read())
def _lower():
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("0")
        return "lowered"
    except OSError as error:
        return errno.errorcode[error.errno]
def _errno(call):
    try:
        call()
        return "allowed"
    except OSError as error:
        return errno.errorcode[error.errno]
_libc = ctypes.CDLL(None, use_errno=True)
def _shmget():
    if _libc.shmget(0, 1 << 20, 0o1600) < 0:  # IPC_PRIVATE, IPC_CREAT | 0600
        raise OSError(ctypes.get_errno(), "shmget")
_before = _score()
_child = int(subprocess.run(["cat", "/proc/self/oom_score_adj"], capture_output=True, text=True).stdout)
_lowering = _lower()
time.sleep(1.0)  # the grader's watchdog looks every 250 ms
result = {"score": _before, "child": _child, "lowering": _lowering, "score_later": _score(),
          "memfd": _errno(lambda: os.memfd_create("x")), "shmget": _errno(_shmget)}
"""

# Files of up to 64 MB, written 8 MB at a time, in every temporary folder; RLIMIT_FSIZE (EFBIG) only
# moves it on to a new file. It stops by itself once it has written BUDGET bytes in all.
FILL = """
import errno, os
WROTE = {}
_chunk = b"x" * (8 << 20)
_total = 0
for _folder in ["/dev/shm", "/tmp", "/var/tmp", os.environ["TMPDIR"]]:
    _stop, _done = "budget reached", 0
    while _total < BUDGET and _stop == "budget reached":
        _fd = os.open(os.path.join(_folder, f"fill-TOKEN-{len(WROTE)}-{_done}"), os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            for _ in range(8):
                if _total >= BUDGET:
                    break
                _total += os.write(_fd, _chunk)
        except OSError as error:
            _stop = errno.errorcode[error.errno]
            if _stop == "EFBIG":
                _stop = "budget reached"  # this file is full: the next one
        finally:
            os.close(_fd)
        _done += 1
    WROTE[_folder] = _stop
WROTE["total"] = _total
"""


def box_for(mode: str, cgroup: bool | None, monkeypatch) -> Sandbox:
    if mode == "no-namespaces" and os.geteuid() != 0:
        isolation_unavailable(fallback.ROOT_ONLY)
    if mode == "namespaces" and not kernel_process.namespaces_available():
        isolation_unavailable("no mount namespace can be made here (neither root nor user namespaces)")
    if cgroup is False:
        monkeypatch.setenv(cgroups.NO_CGROUP_ENV, "1")
    return Sandbox(b'{"cells": []}', "s.ipynb", limits=LIMITS)


@pytest.mark.parametrize("name", MODES)
def test_temporary_files_count_against_the_memory_limit_and_the_kernel_is_the_oom_killers_choice(name, monkeypatch):
    mode, cgroup = MODES[name]
    box = box_for(mode, cgroup, monkeypatch)
    token = os.urandom(4).hex()
    with fallback.mode(mode):
        box.start()
        try:
            assert bool(box.status.get("mount")) == (mode == "namespaces"), box.status
            assert cgroup is None or bool(box.status.get("cgroup")) == cgroup, box.status
            probe = KernelHandle(box, "toy").run(PROBE)
            box.execute_cells([("fill", FILL.replace("BUDGET", str(LIMITS.memory_bytes)).replace("TOKEN", token))])
            alive = box.alive() if mode == "namespaces" else _alive_after_a_look(box)
            if not alive:
                box.execute_cells([("next", "pass")])  # the next cell finds the kernel stopped, and why
            wrote = KernelHandle(box, "toy").run("result = WROTE") if alive else None
            counted = _counted_after(box, wrote["total"]) if alive else None
        finally:
            box.close()

    with open("/proc/self/oom_score_adj") as own:
        grader_score = int(own.read())
    assert probe["score"] == 1000 and probe["child"] == 1000, f"the kernel's oom_score_adj should be 1000: {probe}"
    assert probe["score_later"] == 1000, f"a kernel that lowered its oom_score_adj should be raised again: {probe}"
    assert grader_score < 1000, f"the grader's own oom_score_adj should stay below the kernels': {grader_score}"
    assert probe["memfd"] == "ENOSYS" and probe["shmget"] == "ENOSYS", f"memfds and SysV IPC: {probe}"

    if mode == "namespaces":
        # One private tmpfs behind /dev/shm, /tmp, /var/tmp ($TMPDIR is /tmp): full at its size, and counted.
        assert alive, f"the kernel should only have been refused (ENOSPC), not stopped: {box.findings}"
        assert all(wrote[folder] == "ENOSPC" for folder in ("/dev/shm", "/tmp", "/var/tmp")), wrote
        assert wrote["total"] <= LIMITS.tmp_bytes <= LIMITS.memory_bytes, (wrote, LIMITS.tmp_bytes)
        assert counted >= wrote["total"] - MB, f"the watchdog counted {counted} of {wrote['total']} bytes"
    else:
        # The host's /dev/shm: what the kernel's uid keeps there counts until the limit stops it.
        memory = [f for f in box.findings if f.code == "memory-limit"]
        assert not alive and memory, f"the memory limit should have stopped the kernel: {box.findings}"
        assert box.peak_rss < LIMITS.memory_bytes, "its processes alone stayed below the limit: its files count"
        left = [name for name in os.listdir("/dev/shm") if name.startswith(f"fill-{token}")]
        assert not left, f"the kernel's files should be removed from /dev/shm when its sandbox closes: {left}"


def _alive_after_a_look(box: Sandbox) -> bool:
    """Whether the kernel is still alive once the watchdog has had time to look (every 250 ms). A cell can
    write its files faster than that (tmpfs takes 512 MB in a fraction of a second), and they count for as
    long as they exist, so the limit may stop the kernel just after the cell has ended."""
    end = time.monotonic() + 5
    while box.alive() and time.monotonic() < end:
        time.sleep(0.05)
    return box.alive()


def _counted_after(box: Sandbox, written: int) -> int:
    """What the watchdog counts of the kernel's temporary files, once it has looked (every 250 ms)."""
    end = time.monotonic() + 5
    while box._kernel.tmp_bytes < written - MB and time.monotonic() < end:
        time.sleep(0.05)
    return box._kernel.tmp_bytes


def test_the_private_temporary_folders_fit_in_the_memory_budget():
    for memory in (128 * MB, 512 * MB, 2 * 1024 * MB, 16 * 1024 * MB):
        limits = Limits(memory_bytes=memory)
        assert 0 < limits.tmp_bytes <= memory, (memory, limits.tmp_bytes)
    assert Limits(memory_bytes=32 * MB).tmp_bytes == 32 * MB  # never more than the whole budget


def test_a_kernel_left_with_capabilities_in_a_user_namespace_loses_them():
    """A warm kernel never execs, so an empty bounding set alone would leave it every capability of its
    user namespace (a non-root grader's), enough to mount a tmpfs of any size or to unmount what hides
    the grader's files. Here as an unprivileged user, the launcher's own steps."""
    if os.geteuid() != 0:
        pytest.skip("needs root to become an unprivileged user for the check")
    spec = importlib.util.spec_from_file_location("sandbox_launch", kernel_process.LAUNCHER)
    launch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(launch)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - reports through the pipe
        outcome = "?"
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            launch.prctl(4, 1)  # PR_SET_DUMPABLE, which setuid cleared: its /proc/self files are its own again
            status = {"notes": []}
            if "mount" not in launch.enter_namespaces(status):
                outcome = "no user namespace"
            else:
                launch.mount(None, "/", None, launch.MS_REC | launch.MS_PRIVATE)  # nothing reaches the host
                tmpfs = ("tmpfs", "/tmp", "tmpfs", launch.MS_NOSUID | launch.MS_NODEV, "size=1m")
                launch.mount(*tmpfs)  # holds every capability of the namespace: it can
                launch.clear_capabilities()
                outcome = _attempt(lambda: launch.mount(*tmpfs))
        except BaseException as error:  # noqa: BLE001 - the parent reads it
            outcome = repr(error)
        os.write(write, outcome.encode())
        os._exit(0)
    os.close(write)
    outcome = os.read(read, 4096).decode()
    os.close(read)
    os.waitpid(child, 0)
    if outcome == "no user namespace":  # then no grader here would run a kernel in one either
        pytest.skip("unprivileged user namespaces are not available here")
    assert outcome == "EPERM", f"after clear_capabilities a mount should be refused (EPERM), got {outcome}"


def _attempt(action) -> str:
    try:
        action()
        return "allowed"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))


def test_the_fallbacks_count_finds_a_uids_files_wherever_it_could_write_them(tmp_path):
    """``owned_files``: the uid's files in a world-writable folder and in its own folders are found; a
    folder it could not write into is never entered (here one holding a file of that uid's anyway)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to give files to another uid")
    uid = kernel_process.SANDBOX_UIDS[0]
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    own, closed = shared / "own", shared / "closed"  # closed: 0755, root's, so the uid made nothing in it
    own.mkdir()
    closed.mkdir()
    for path in (shared / "a", own / "b", closed / "c"):
        path.write_bytes(b"x" * MB)
        os.chown(path, uid, uid)
    os.chown(own, uid, uid)
    found = tmpfiles.owned_files(uid, [str(shared)])
    expected = {(info.st_dev, info.st_ino) for info in map(os.stat, (shared / "a", own, own / "b"))}
    assert set(found) == expected, f"expected the uid's a, own/ and own/b, found {sorted(found)}"
    assert found[(os.stat(own / "b").st_dev, os.stat(own / "b").st_ino)] >= MB


def test_a_deleted_file_held_open_or_mapped_is_still_counted():
    """``held_deleted``: a file deleted from a temporary folder keeps its memory while a descriptor or a
    mapping holds it; both are found."""
    folder = "/dev/shm" if os.path.isdir("/dev/shm") else "/tmp"
    device = os.stat(folder).st_dev
    path = os.path.join(folder, f"held-{os.urandom(4).hex()}")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    os.unlink(path)
    mapped = None
    try:
        os.write(fd, b"x" * (2 * MB))
        held = tmpfiles.held_deleted([os.getpid()], {device})
        assert sum(held.values()) >= 2 * MB, f"a deleted file held open should count: {held}"
        mapped = mmap.mmap(fd, 2 * MB)
        os.close(fd)
        fd = None
        held = tmpfiles.held_deleted([os.getpid()], {device})
        assert sum(held.values()) >= 2 * MB, f"a deleted file held only by a mapping should count: {held}"
    finally:
        if fd is not None:
            os.close(fd)
        if mapped is not None:
            mapped.close()
