"""One sandbox cannot starve another (issue 23, item 3), with the machine's namespaces and cgroups, and in
the forced fallback with neither (as in a default Docker container or on Gradescope).

The hog (our own version of the attack): a cell that starts busy children, each first trying setsid() so
that the scheduler's autogroups would give it a CPU share of its own. Its classmate, the victim, is the
toy's correct notebook, graded by a suite whose two ``add`` calls each need ``NEED_S`` of the kernel's CPU
time (the snippet spins until ``time.process_time`` has grown that much, so the need is the same however
loaded the machine is; the notebook's own cells stay cheap). Both are graded at once with two workers,
and both grader processes, with the kernels they start, are pinned to one core: the victim's kernel
shares it with the hog's sandbox, one share each, so it gets about half a core on any machine.

Measured on the 2-core CI machine (load 1 to 2 from other work): beside the hog, each of the victim's
busy calls took 2.3 to 2.5 s of wall time for its 1.0 s of CPU time, and its kernel used 2.05 s of CPU
time in all (the snippets' own work is a few hundredths of a second). The call budget, ``CALL_BUDGET_S`` =
1.25 s, is that need plus a quarter. Counted in wall time (the grader before CPU-time budgets) both busy
calls timed out at 1.25 s and the victim kept 3 of its 5 points, in both modes (this test failed);
counted in its kernel's CPU time they finish, well within the wall ceiling (``Limits.wall_factor``, 4,
times the budget: 5 s, a quarter of the core). The hog's own calls soon run out of CPU time, since its
spinners' time is its own; the spinners stop after SPIN_S seconds anyway. 16 to 26 s per mode, most of it
two cold kernels starting on one core.
"""

import functools
import os

import nbformat
import pytest

from assignments.grading.doors import batch
from assignments.grading.sandbox.cgroups import NO_CGROUP_ENV
from assignments.grading.sandbox.limits import Limits
from assignments.grading.sandbox.session import KernelHandle, Sandbox
from tests.fixtures import fallback, toy
from tests.fixtures.batch import grade_toy_job, limits_dict
from tests.helpers import isolation_unavailable

MODES = ("namespaces", "no-namespaces")
SPINNERS, SPIN_S = 32, 12
NEED_S = 1.0  # CPU seconds each busy call needs
CALL_BUDGET_S = 1.25  # NEED_S plus a quarter: the snippet's own work is under 0.1 s
# Small interpreters, not forks of the kernel: forks would share its pages but each count its whole RSS
# against the memory cap, and the watchdog would end the hog before it hurt anyone.
SPIN = (
    "import os, time\n"
    "try:\n    os.setsid()\nexcept OSError:\n    pass\n"
    f"end = time.monotonic() + {SPIN_S}\n"
    "while time.monotonic() < end:\n    pass\n"
)
HOG = f"""
import subprocess, sys
_spinners = [subprocess.Popen([sys.executable, "-S", "-c", {SPIN!r}]) for _ in range({SPINNERS})]
"""
WORK = f"import time\n_end = time.process_time() + {NEED_S}\nwhile time.process_time() < _end:\n    pass\n"
BUSY_TESTS = f"""\
import torch
from assignments.grading.testkit.checks import expect, expect_close, question

WORK = {WORK!r}


@question("add_tests", points=1)
def test_add_tensors_after_work(student):
    a, b = torch.ones(2, 3), torch.arange(6.0).reshape(2, 3)
    out = student.run(WORK + "result = add(a, b)", a=a, b=b, timeout=5)
    expect_close(out, a + b, "add(a, b)")


@question("add_tests", points=1)
def test_add_numbers_after_work(student):
    out = student.run(WORK + "result = add(2, 5)", timeout=5)
    expect(type(out) is int and out == 7, "add(2, 5) should be the int 7")


@question("scale_tests", points=3)
def test_scale_tensor(student):
    x = torch.arange(6.0).reshape(2, 3)
    out = student.run("result = scale(x, 3)", stand_ins=("add",), x=x, timeout=5)
    expect_close(out, x * 3, "scale(x, 3)")
"""


def needs_root_for(mode):
    if mode == "no-namespaces" and os.geteuid() != 0:
        isolation_unavailable(fallback.ROOT_ONLY)


def pinned_grader(cpu, toy_folder, limits, assignment, job, skip_tests=(), test_log=None):
    """``grade_toy_job`` on one core: the grader process and every kernel it starts inherit the pin."""
    os.sched_setaffinity(0, {cpu})
    return grade_toy_job(toy_folder, limits, assignment, job, skip_tests, test_log)


@pytest.fixture
def no_cgroup_in_fallback(mode, monkeypatch):
    """The fallback mode as Docker and Gradescope give it: no namespaces and no cgroup either, so the
    budgets count CPU time from the kernel's process tree (cgroups are tested in test_sandbox_cgroup.py)."""
    if mode == "no-namespaces":
        monkeypatch.setenv(NO_CGROUP_ENV, "1")


@pytest.mark.parametrize("mode", MODES)
def test_a_cpu_hog_beside_the_reference_leaves_it_full_marks(tmp_path, mode, no_cgroup_in_fallback):
    needs_root_for(mode)
    the_toy = toy.build(tmp_path / "toy", tests=BUSY_TESTS)
    hog = the_toy.reference()
    hog.cells.insert(2, nbformat.v4.new_code_cell(HOG))
    jobs = [
        batch.Job("hog", str(the_toy.write(hog, "hog.ipynb"))),
        batch.Job("victim", str(the_toy.write(the_toy.reference(), "victim.ipynb"))),
    ]
    limits = limits_dict(Limits(cell_timeout=10, call_timeout=CALL_BUDGET_S, total_timeout=60, startup_timeout=60))
    grader = functools.partial(pinned_grader, min(os.sched_getaffinity(0)), str(the_toy.folder), limits)
    with fallback.mode(mode):
        results = batch.grade_batch(
            the_toy.assignment, jobs, tmp_path / "out", workers=2, progress=False, grader=grader, warm_kernels=False
        )
    hog, victim = results
    if mode == "no-namespaces":  # the grader processes ran in the fallback too (batch._sandbox_switches)
        assert any(f.code == "sandbox-degraded" for f in hog.findings), hog.findings
        assert hog.timings["kernel_cgroup"] == 0 and victim.timings["kernel_cgroup"] == 0
    assert victim.autograded_points == victim.autograded_max, (
        [(f.code, f.message) for f in victim.findings],
        [(t.name, t.message, t.seconds) for q in victim.questions for t in q.tests],
    )
    # the load was real: a budget counted in wall time would have stopped at least one busy call
    busy = [t.seconds for t in victim.question("add_tests").tests]
    assert max(busy) > CALL_BUDGET_S, busy
    assert victim.timings["kernel_cpu_s"] >= 2 * NEED_S and victim.timings["cpu_timeouts"] == 0, victim.timings


@pytest.mark.parametrize("mode", MODES)
def test_the_kernel_cannot_start_a_session_or_a_process_group(mode):
    needs_root_for(mode)
    with fallback.mode(mode):
        box = Sandbox(b'{"cells": []}', "s.ipynb", limits=Limits(cell_timeout=15, total_timeout=60))
        box.start()
        try:
            assert box.status.get("sessions"), box.status
            code = (
                "import errno, os\n"
                "def _try(f):\n"
                "    try:\n        f()\n        return 'done'\n"
                "    except OSError as e:\n        return errno.errorcode[e.errno]\n"
                "result = [_try(os.setsid), _try(lambda: os.setpgid(0, 0))]"
            )
            assert KernelHandle(box, "toy").run(code) == ["EPERM", "EPERM"]
        finally:
            box.close()
