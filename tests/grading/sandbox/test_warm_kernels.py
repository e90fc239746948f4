"""Warm kernels (``assignments/grading/sandbox/warm_kernels.py``): what a kernel forked from the zygote must not
inherit, that it dies with its grader, and that anything the warm path cannot do ends in a cold start.
The attacks on a warm kernel are in test_attacks.py (its "warm" mode) and the hostile class of
grading/doors/test_standalone.py, which is graded with warm kernels."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import psutil
import pytest

from assignments.course import REPO
from assignments.grading.doors import batch
from assignments.grading.sandbox.limits import Limits
from assignments.grading.sandbox.session import KernelHandle, Sandbox
from assignments.grading.sandbox.warm_kernels import ZYGOTE_ENV, warm_scratch
from tests.fixtures import batch as batch_fixtures
from tests.fixtures import toy, warm
from tests.helpers import isolation_unavailable

LIMITS = Limits(cell_timeout=20, call_timeout=10, total_timeout=120)


# The tests that use the module's zygote run on one worker (`--dist loadgroup`): it is started once (about 9 s
# of CPU, reaped at the module's end), not on each worker that got one of them.
ON_ZYGOTE = pytest.mark.xdist_group("warm_kernels_zygote")


@pytest.fixture(scope="module")
def zygote():
    with warm.zygote() as started:
        yield started


def start_box(name: str = "warm.ipynb", limits: Limits = LIMITS) -> tuple[Sandbox, KernelHandle]:
    box = Sandbox(b'{"cells": []}', name, limits=limits)
    box.start()
    if not box.status.get("mount"):
        box.close()
        isolation_unavailable("a warm kernel needs a mount namespace, which this machine does not give")
    return box, KernelHandle(box, "toy", seed=0, stand_in_source="")


@ON_ZYGOTE
def test_a_warm_kernel_keeps_the_students_files_in_its_own_scratch(zygote):
    box, student = start_box()
    try:
        assert box.status.get("warm"), box.status
        home = student.run(
            "import os\nopen(os.path.expanduser('~/note.txt'), 'w').write('mine')\n"
            "result = [os.environ['HOME'], os.environ['HF_HOME']]"
        )
        fixed = warm_scratch(zygote.socket)
        assert home == [str(fixed), f"{fixed}/.cache/huggingface"]
        assert (box.scratch / "note.txt").read_text() == "mine", "HOME is not the student's own scratch"
    finally:
        box.close()


@ON_ZYGOTE
def test_two_warm_kernels_share_no_random_state_and_no_zygote_file(zygote):
    listener = os.readlink(f"/proc/{zygote.proc.pid}/fd/3")
    assert listener.startswith("socket:"), listener
    draws, links = [], []
    for name in ("first.ipynb", "second.ipynb"):
        box, student = start_box(name)
        try:
            # a notebook cell, not a call: a hidden test's call is seeded by the grader on purpose
            box.execute_cells(
                [("draw", "import random, numpy\nDRAW = [random.getrandbits(64), int(numpy.random.randint(2 ** 62))]")]
            )
            out = student.run(
                "import os\nlinks = []\nfor fd in os.listdir('/proc/self/fd'):\n"
                "    try:\n        links.append(os.readlink(f'/proc/self/fd/{fd}'))\n"
                "    except OSError:\n        pass   # the listing's own descriptor\n"
                "result = [DRAW, links]"
            )
        finally:
            box.close()
        draws.append(out[0])
        links += out[1]
    assert draws[0][0] != draws[1][0], "both kernels drew the same numbers from random"
    assert draws[0][1] != draws[1][1], "both kernels drew the same numbers from numpy: the zygote's seed was kept"
    assert listener not in links, "a kernel holds the zygote's listening socket"
    assert not any(zygote.socket in link for link in links), links


@ON_ZYGOTE
def test_a_grader_that_leaves_mid_request_does_not_stop_the_zygote(zygote):
    import socket

    for message in (b"", b"{not json\n", b'{"env": {}}\n'):
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(zygote.socket)
        if message:
            conn.sendall(message)
        conn.close()  # gone before the zygote answers
    assert zygote.proc.poll() is None, "the zygote ended: every other student's kernel would have died with it"
    box, student = start_box("after.ipynb")
    try:
        assert box.status.get("warm") and student.run("result = 1") == 1
    finally:
        box.close()


@ON_ZYGOTE
def test_a_warm_kernel_dies_with_its_grader_process(zygote, tmp_path):
    """The launcher's parent is the zygote, so only its lifeline to the grader can end it early."""
    script = (
        "import json, sys, time\n"
        "from assignments.grading.sandbox.limits import Limits\nfrom assignments.grading.sandbox.session import Sandbox\n"
        "box = Sandbox(b'{\"cells\": []}', 'orphan.ipynb', limits=Limits())\n"
        "box.start()\n"
        "print(json.dumps({'warm': bool(box.status.get('warm')), 'launcher': box._kernel.proc.pid}), flush=True)\n"
        "time.sleep(600)\n"
    )
    grader = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, ZYGOTE_ENV: zygote.socket},
        cwd=str(REPO),
    )
    try:
        report = json.loads(grader.stdout.readline())
        assert report["warm"]
        tree = [psutil.Process(report["launcher"])]
        tree += tree[0].children(recursive=True)
        assert len(tree) >= 3, "launcher, init and kernel expected"
        grader.send_signal(signal.SIGKILL)
        grader.wait()
        gone, alive = psutil.wait_procs(tree, timeout=10)
        assert not alive, f"the kernel outlived its grader: {[p.pid for p in alive]}"
    finally:
        grader.kill()
        grader.stdout.close()


@ON_ZYGOTE
def test_a_request_for_another_environment_gets_a_cold_kernel(zygote):
    box, student = start_box(limits=Limits(cell_timeout=20, call_timeout=10, total_timeout=120, threads=2))
    try:
        assert not box.status.get("warm"), box.status
        assert student.run("import os\nresult = os.environ['OMP_NUM_THREADS']") == "2"
    finally:
        box.close()


def assert_a_cold_kernel_answers():
    box, student = start_box()
    try:
        assert not box.status.get("warm"), box.status
        assert student.run("result = 6 * 7") == 42
    finally:
        box.close()


def test_without_a_zygote_the_kernel_starts_cold(monkeypatch, tmp_path):
    monkeypatch.setenv(ZYGOTE_ENV, str(tmp_path / "no-such.sock"))
    assert_a_cold_kernel_answers()


def test_a_batch_grades_with_warm_kernels_and_stops_its_zygote(tmp_path):
    the_toy = toy.build(tmp_path / "toy")
    jobs = [
        batch.Job(name, str(the_toy.write(nb, f"{name}.ipynb")))
        for name, nb in (("ref", the_toy.reference()), ("blank", the_toy.release))
    ]
    before = _zygotes()
    grader = partial(batch_fixtures.grade_toy_job, str(the_toy.folder), batch_fixtures.limits_dict(Limits()))
    results = batch.grade_batch(the_toy.assignment, jobs, tmp_path / "out", workers=2, progress=False, grader=grader)
    assert [r.timings.get("warm_kernel") for r in results] == [1, 1]
    points = [sum(q.points or 0 for q in r.questions) for r in results]
    assert points[0] > 0 and points[1] == 0, points
    assert not _zygotes() - before, "the batch left its zygote running"


def _zygotes() -> set[int]:
    """This process's zygotes (the batch's is its child; other test workers may run their own)."""
    return {p.pid for p in psutil.Process().children() if "programs/zygote.py" in " ".join(_cmdline(p))}


def _cmdline(process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []


def test_a_zygote_that_fails_to_import_lets_kernels_start_cold_at_once(monkeypatch):
    from assignments.grading.sandbox import warm_kernels
    from assignments.grading.sandbox.process import kernel_env

    monkeypatch.setattr(warm_kernels, "PRELOAD", ["torch", "no_such_module_for_the_zygote"])
    broken = warm_kernels.Zygote.spawn(lambda scratch: kernel_env(scratch, LIMITS))
    try:
        monkeypatch.setenv(ZYGOTE_ENV, broken.socket)
        began = time.monotonic()
        assert_a_cold_kernel_answers()
        assert time.monotonic() - began < warm_kernels.START_TIMEOUT_S / 2, "the grader waited for a failed zygote"
        assert Path(broken.socket).with_name("failed").exists()
    finally:
        broken.close()
