"""The suite's hang backstop (tests/conftest.py, issue #43 item 8): a test that never returns ends its
process with every thread's traceback, so `make test` fails instead of hanging. Checked on a pytest run of
its own, with the backstop set to 2 s: a test that sleeps for ten minutes, a failing test whose teardown
does (pytest cancels faulthandler's timer when a test fails), and a test that forks a child that cancels
the timer (a fork keeps the timer but not its thread; the self-test's forked mutants did this and hung)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from assignments.course import REPO

HANGS = {
    "sleeps": "import time\n\n\ndef test_hangs():\n    time.sleep(600)\n",
    "fails-then-hangs-in-teardown": (
        "import time\n\nimport pytest\n\n\n@pytest.fixture\ndef stuck():\n    yield\n    time.sleep(600)\n\n\n"
        "def test_hangs(stuck):\n    assert False, 'fails first'\n"
    ),
    "forks-a-child-that-cancels-the-timer": (
        "import faulthandler\nimport os\nimport time\n\n\ndef test_hangs():\n    pid = os.fork()\n"
        "    if pid == 0:\n        faulthandler.cancel_dump_traceback_later()\n        os._exit(0)\n"
        "    os.waitpid(pid, 0)\n    time.sleep(600)\n"
    ),
}


@pytest.mark.parametrize("body", HANGS.values(), ids=HANGS.keys())
def test_a_test_that_never_returns_fails_the_run_instead_of_hanging_it(tmp_path, body):
    (tmp_path / "test_hangs.py").write_text(body)
    env = {**os.environ, "COURSE_TEST_TIMEOUT_S": "2", "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider", "-q"]
    began = time.monotonic()
    done = subprocess.run(
        [*command, "-p", "no:xdist", str(tmp_path / "test_hangs.py")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    took = time.monotonic() - began
    assert done.returncode != 0, f"the hanging run passed:\n{done.stdout}\n{done.stderr}"
    assert took < 60, f"the backstop took {took:.0f} s to end a run it should end after 2 s"
    assert "Timeout" in done.stderr and "test_hangs" in done.stderr, (
        f"the hang should be reported with its traceback:\n{done.stderr[-2000:]}"
    )
