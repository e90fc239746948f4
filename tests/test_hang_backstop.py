"""The suite's hang backstop (tests/conftest.py, issue #43 item 8): a test that never returns ends its
process with every thread's traceback, so `make test` fails instead of hanging. Checked on a pytest run of
its own, with the backstop set to 2 s and a test that sleeps for ten minutes."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from assignments.course import REPO


def test_a_test_that_never_returns_fails_the_run_instead_of_hanging_it(tmp_path):
    (tmp_path / "test_hangs.py").write_text("import time\n\n\ndef test_hangs():\n    time.sleep(600)\n")
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
