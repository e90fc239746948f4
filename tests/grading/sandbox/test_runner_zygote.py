"""One submission's grader and its kernel share torch's memory (``programs/zygote.py``, second form), as
Gradescope's ``run_autograder`` starts them: the grader imports torch, forks a zygote, and the kernel is
forked from that zygote, in the no-namespace fallback too. The zygote adopts its first kernel's
environment, and refuses (a cold start) a kernel whose start-time settings differ from the grader's.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

from assignments.course import REPO
from assignments.grading.sandbox import warm_kernels
from assignments.grading.sandbox.limits import Limits
from assignments.grading.sandbox.process import NO_NAMESPACES_ENV, kernel_env
from tests.fixtures import fallback
from tests.helpers import needs_isolation

MB = 2**20

# The grader's side, run by zygote.py after it forked the zygote: one sandbox in the forced fallback, whose
# kernel reports its uid, how much of its anonymous memory it shares (the pages of torch it was forked
# with), and what it gets when it tries to reach a zygote's socket.
GRADER = textwrap.dedent(
    """
    import json, sys
    from assignments.grading.sandbox.limits import Limits
    from assignments.grading.sandbox.session import KernelHandle, Sandbox

    box = Sandbox(b'{"cells": []}', "one.ipynb", limits=Limits(cell_timeout=30, call_timeout=30, total_timeout=120))
    box.start()
    try:
        code = '''
    import glob, os, socket
    def shared_anonymous_mb():
        with open("/proc/self/smaps_rollup") as rollup:
            fields = dict(line.split()[:2] for line in rollup)
        return (int(fields["Anonymous:"]) - int(fields["Pss_Anon:"])) // 1024
    def connect(path):
        try:
            socket.socket(socket.AF_UNIX).connect(path)
            return "connected"
        except OSError as error:
            return type(error).__name__
    result = {"uid": os.getuid(), "shared_mb": shared_anonymous_mb(),
              "zygotes": {path: connect(path + "/zygote.sock") for path in glob.glob("/tmp/course-zygote-*")}}
    '''
        found = KernelHandle(box, "toy", seed=0, stand_in_source="").run(code)
        print(json.dumps({"status": box.status, "kernel": found}))
    finally:
        box.close()
    """
)


@needs_isolation(None if os.geteuid() == 0 else fallback.ROOT_ONLY)
def test_the_kernel_of_one_submission_is_forked_from_the_graders_zygote_without_namespaces(tmp_path):
    script = tmp_path / "grader.py"
    script.write_text(GRADER)
    command = warm_kernels.runner_command(sys.executable, ["ipykernel.kernelapp"])
    env = {
        **os.environ,
        **warm_kernels.runner_env(kernel_env(tmp_path, Limits())),
        NO_NAMESPACES_ENV: "1",
        "PYTHONPATH": str(REPO),
    }
    with fallback.searchable():
        done = subprocess.run([*command, "--script", str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"the grader failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    report = json.loads(done.stdout.strip().splitlines()[-1])
    status, kernel = report["status"], report["kernel"]
    assert status.get("warm") and status["fallback"]["dropped"], (
        f"the kernel should be forked from the zygote and run as its own uid: {status}"
    )
    assert kernel["uid"] == status["uid"] != 0, kernel
    # torch alone is over 100 MB of anonymous memory once imported (benchmarks/README.md)
    assert kernel["shared_mb"] > 100, f"the kernel shares only {kernel['shared_mb']} MB of anonymous memory"
    assert kernel["zygotes"] and set(kernel["zygotes"].values()) == {"PermissionError"}, (
        f"the kernel's uid must not reach a zygote's socket (it could ask for a launch): {kernel['zygotes']}"
    )


def zygote_program():
    spec = importlib.util.spec_from_file_location("zygote_program", warm_kernels.SCRIPT)
    sys.path.insert(0, str(warm_kernels.SCRIPT.parent))  # it imports launch.py beside it
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(warm_kernels.SCRIPT.parent))
    return module


@pytest.mark.parametrize("differs", [False, True], ids=["same settings", "another hash seed"])
def test_the_zygote_adopts_its_kernels_environment_unless_a_start_setting_differs(monkeypatch, differs):
    program = zygote_program()
    env = {**kernel_env(REPO / "scratch", Limits())}
    same = warm_kernels.runner_env(env)
    monkeypatch.setattr(program, "ADOPTING", {"preload": [], "same": same, "grader_paths": set()})
    monkeypatch.setattr(program.os, "environ", dict(os.environ))  # adopting rewrites the environment
    monkeypatch.setattr(program.sys, "path", list(sys.path))
    monkeypatch.setattr(program.sys, "dont_write_bytecode", sys.dont_write_bytecode)
    asked = {**env, "PYTHONHASHSEED": "1"} if differs else env
    assert program.adopt(asked) is not differs
    assert program.adopt(env) is not differs, "a second kernel (a restart) must get what the first got"
