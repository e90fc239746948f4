"""The reaper: nothing a command starts outlives it, and a deadline ends it (the nbgrader door's containment)."""

import subprocess
import sys

import pytest

from assignments.grading.doors.nbgrader.reaper import DEADLINE_EXIT
from tests.helpers import alive

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_CHILD_SUBREAPER is Linux's")

# A detached grandchild (double fork + setsid) that keeps the command's stdout and stderr open for
# ten minutes: without the reaper the caller would wait for EOF that long. The command prints the
# grandchild's pid itself, once the grandchild has sent it: under load the command could otherwise exit,
# and the reaper kill the grandchild, before the grandchild had printed anything.
DAEMON = """import os, sys, time
read_end, write_end = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.write(write_end, str(os.getpid()).encode())
        time.sleep(600)
    os._exit(0)
os.close(write_end)
print(os.read(read_end, 32).decode(), flush=True)
"""


def reaped(deadline_s: float, code: str) -> subprocess.CompletedProcess:
    # The 120 s bound only stops a broken reaper from hanging the suite (the daemon would hold 600 s).
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "assignments.grading.doors.nbgrader.reaper",
            str(deadline_s),
            sys.executable,
            "-c",
            code,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_detached_daemon_is_killed_and_releases_the_pipes():
    done = reaped(300, DAEMON)
    pid = int(done.stdout.split()[0])
    assert not alive(pid), f"the daemon {pid} survived the reaper"
    assert done.returncode == 0, f"the command's own exit status should pass through, got {done.returncode}"
    assert "killed 1 process(es) left behind" in done.stderr


def test_a_command_past_its_deadline_is_stopped_with_exit_124():
    done = reaped(1, "import time; time.sleep(600)")
    assert done.returncode == DEADLINE_EXIT, f"expected exit {DEADLINE_EXIT} at the deadline, got {done.returncode}"
    assert "deadline" in done.stderr
