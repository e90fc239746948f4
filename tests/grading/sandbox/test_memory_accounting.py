"""A kernel keeps no capability, even where it never execs (issue #31, item 7): a warm kernel in a user
namespace would otherwise keep every capability there, enough to mount a tmpfs of any size, outside every
memory count."""

import errno
import importlib.util
import os

import pytest

from assignments.grading.sandbox import process as kernel_process


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
