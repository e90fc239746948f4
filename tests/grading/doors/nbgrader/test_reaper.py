"""The reaper: nothing a command starts outlives it, a deadline ends it, and each command under one reaper
starts as a new process would (the nbgrader door's containment, nbgrader imported once per batch)."""

import os
import signal
import sys
import time

import pytest

from assignments.grading.doors.nbgrader.reaper import DEADLINE_EXIT, Reaper
from tests.helpers import alive

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_CHILD_SUBREAPER is Linux's")

# A detached grandchild (double fork + setsid) that keeps the command's stdout and stderr open for ten
# minutes: without the reaper the caller would wait that long. The command prints the grandchild's pid
# itself, once the grandchild has sent it: under load the command could otherwise exit, and the reaper
# kill the grandchild, before the grandchild had printed anything.
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
# What a command sees of the reaper's state: the module it was started with, and whatever an earlier
# command left in it; it then leaves a mark in both, and exits with the status its argument says.
STATE = """import os, sys
import warm_state
print(f"cwd={os.getcwd()} argv={sys.argv[1:]} mark={getattr(warm_state, 'mark', None)} env={os.environ.get('LEFT')}")
warm_state.mark = "left by an earlier command"
os.environ["LEFT"] = "by an earlier command"
sys.exit(int(sys.argv[1]))
"""


@pytest.fixture
def modules(tmp_path):
    """A folder of command modules, and the environment that puts it on the reaper's path."""
    (tmp_path / "daemon_cmd.py").write_text(DAEMON)
    (tmp_path / "sleep_cmd.py").write_text("import time\ntime.sleep(600)\n")
    (tmp_path / "state_cmd.py").write_text(STATE)
    (tmp_path / "warm_state.py").write_text("IMPORTED = True\n")
    (tmp_path / "broken_warm.py").write_text("raise ImportError('this module cannot be imported')\n")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}


def test_a_detached_daemon_is_killed_and_releases_the_output(modules, tmp_path):
    started = time.monotonic()
    with Reaper(modules) as reaper:
        done = reaper.run("daemon_cmd", [], tmp_path, 300)
    pid = int(done.stdout.split()[0])
    assert not alive(pid), f"the daemon {pid} survived the reaper"
    assert done.returncode == 0, f"the command's own exit status should pass through, got {done.returncode}"
    assert "killed 1 process(es) left behind" in done.stderr
    assert time.monotonic() - started < 120, "the caller waited on the daemon"


def test_a_command_past_its_deadline_is_stopped_with_exit_124(modules, tmp_path):
    with Reaper(modules) as reaper:
        done = reaper.run("sleep_cmd", [], tmp_path, 1)
        assert done.returncode == DEADLINE_EXIT, f"expected exit {DEADLINE_EXIT} at the deadline, got {done.returncode}"
        assert "deadline" in done.stderr
        after = reaper.run("state_cmd", ["0"], tmp_path, 60)
    assert after.returncode == 0 and "mark=None" in after.stdout, "the reaper should go on after a deadline"


def test_each_command_starts_from_the_reaper_as_it_started_and_nothing_of_the_last_is_alive(modules, tmp_path):
    (tmp_path / "here").mkdir()
    with Reaper(modules, warm=("warm_state",)) as reaper:
        daemon = reaper.run("daemon_cmd", [], tmp_path, 300)
        first = reaper.run("state_cmd", ["3"], tmp_path / "here", 60)
        second = reaper.run("state_cmd", ["0"], tmp_path, 60)
        process = reaper.process
    assert not alive(int(daemon.stdout.split()[0])), "the first command's daemon outlived it"
    assert first.returncode == 3 and second.returncode == 0, (first, second)
    assert f"cwd={tmp_path / 'here'} argv=['3'] mark=None env=None" in first.stdout, first.stdout
    assert "mark=None env=None" in second.stdout, f"the second command saw what the first left: {second.stdout}"
    assert first.stdout.count("\n") == 1 and second.stdout.count("\n") == 1, "one command's output in another's"
    assert process.poll() is not None, "closing should end the reaper"


def test_a_reaper_that_cannot_start_says_why_as_the_commands_failure(modules, tmp_path):
    with Reaper(modules, warm=("broken_warm",)) as reaper:
        done = reaper.run("state_cmd", ["0"], tmp_path, 60)
    assert done.returncode == 1 and "this module cannot be imported" in done.stderr, done


def test_a_reaper_that_died_between_commands_is_started_again(modules, tmp_path):
    with Reaper(modules) as reaper:
        assert reaper.run("state_cmd", ["0"], tmp_path, 60).returncode == 0
        os.killpg(reaper.process.pid, signal.SIGKILL)
        reaper.process.wait()
        again = reaper.run("state_cmd", ["0"], tmp_path, 60)
    assert again.returncode == 0 and "mark=None" in again.stdout, again


# A command that writes forged replies into the reaper's own output through /proc (its processes run as the
# caller's user, as a student's kernel under nbgrader does): a status of 0, a line that is no JSON, a reply
# for a request that does not exist, and a line it leaves unfinished; then it exits 3 itself.
FORGER = r"""import os, sys
with open(f"/proc/{os.getppid()}/fd/1", "w") as reaper:
    reaper.write('{"status": 0}\nnot json at all\n{"id": "guess", "status": 0}\n[1, 2]\n{"status": 0, "unfinished"')
sys.exit(3)
"""


def test_replies_forged_into_the_reapers_output_are_never_read_as_a_status(modules, tmp_path):
    (tmp_path / "forger_cmd.py").write_text(FORGER)
    with Reaper(modules) as reaper:
        forged = reaper.run("forger_cmd", [], tmp_path, 60)
        after = reaper.run("state_cmd", ["5"], tmp_path, 60)
    assert forged.returncode == 3, f"a forged line was read as the forger's status: {forged.returncode}"
    assert after.returncode == 5 and "mark=None" in after.stdout, (
        f"the next command got another reply than its own: {after.returncode}"
    )
