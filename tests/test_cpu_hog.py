"""One sandbox cannot starve another (issue 23, item 3), with the machine's namespaces and in the forced
fallback.

The hog (our own version of the attack): a cell that forks busy children, each first trying setsid() so
that the scheduler's autogroups would give it a CPU share of its own. Graded beside the toy's reference
with two workers on this 2-core machine, the reference must keep full marks. Each sandbox is one
session (its launcher's) and the seccomp filter refuses setsid/setpgid, so the hog gets one share.
The spinners stop after SPIN_S seconds of their own, to keep the test's CPU cost bounded.
"""

import functools
import os

import nbformat
import pytest

from assignments.grading import batch
from assignments.grading.limits import Limits
from assignments.grading.sandbox import KernelHandle, Sandbox
from tests.fixtures import fallback, toy
from tests.fixtures.batch import grade_toy_job, limits_dict
from tests.helpers import isolation_unavailable

MODES = ("namespaces", "no-namespaces")
SPINNERS, SPIN_S = 32, 10
# Small interpreters, not forks of the kernel: forks would share its pages but each count its whole RSS
# against the memory cap, and the watchdog would end the hog before it hurt anyone. On the toy this test
# also passed before the seccomp filter (the toy's reference needs too little CPU once its kernel is up):
# it guards against a regression; the session test below is the one that tells the filter is there.
SPIN = ("import os, time\n"
        "try:\n    os.setsid()\nexcept OSError:\n    pass\n"
        f"end = time.monotonic() + {SPIN_S}\n"
        "while time.monotonic() < end:\n    pass\n")
HOG = f"""
import subprocess, sys
_spinners = [subprocess.Popen([sys.executable, "-S", "-c", {SPIN!r}]) for _ in range({SPINNERS})]
"""


def needs_root_for(mode):
    if mode == "no-namespaces" and os.geteuid() != 0:
        isolation_unavailable(fallback.ROOT_ONLY)


@pytest.mark.parametrize("mode", MODES)
def test_a_cpu_hog_beside_the_reference_leaves_it_full_marks(tmp_path, mode):
    needs_root_for(mode)
    the_toy = toy.build(tmp_path / "toy")
    hog = the_toy.reference()
    hog.cells.insert(2, nbformat.v4.new_code_cell(HOG))
    jobs = [batch.Job("hog", str(the_toy.write(hog, "hog.ipynb"))),
            batch.Job("reference", str(the_toy.write(the_toy.reference(), "reference.ipynb")))]
    limits = limits_dict(Limits(cell_timeout=10, call_timeout=5, total_timeout=60, startup_timeout=30))
    grader = functools.partial(grade_toy_job, str(the_toy.folder), limits)
    with fallback.mode(mode):
        results = batch.grade_batch(toy.NAME, jobs, tmp_path / "out", workers=2, progress=False, grader=grader,
                                    warm_kernels=False)
    reference = results[1]
    assert reference.autograded_points == reference.autograded_max, \
        [(f.code, f.message) for f in reference.findings]


@pytest.mark.parametrize("mode", MODES)
def test_the_kernel_cannot_start_a_session_or_a_process_group(mode):
    needs_root_for(mode)
    with fallback.mode(mode):
        box = Sandbox(b'{"cells": []}', "s.ipynb", limits=Limits(cell_timeout=15, total_timeout=60))
        box.start()
        try:
            assert box.status.get("sessions"), box.status
            code = ("import errno, os\n"
                    "def _try(f):\n"
                    "    try:\n        f()\n        return 'done'\n"
                    "    except OSError as e:\n        return errno.errorcode[e.errno]\n"
                    "result = [_try(os.setsid), _try(lambda: os.setpgid(0, 0))]")
            assert KernelHandle(box, "toy").run(code) == ["EPERM", "EPERM"]
        finally:
            box.close()
