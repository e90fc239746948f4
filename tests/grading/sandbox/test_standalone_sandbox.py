"""The sandboxed child kernel: safe transport across the boundary, timeouts, restarts, isolation."""

import os
import pickle

import psutil
import pytest
import torch

from assignments.course import REPO
from assignments.grading.environment import GRADING_ENV
from assignments.grading.sandbox.limits import Limits
from assignments.grading.sandbox.session import KernelHandle, Sandbox
from assignments.grading.testkit.errors import SandboxError, StudentCodeError, StudentTimeout
from tests.helpers import REQUIRE_ISOLATION, isolation_required, isolation_unavailable

LIMITS = Limits(
    cell_timeout=20, call_timeout=10, interrupt_grace=2, total_timeout=150, max_result_bytes=8 * 2**20, max_restarts=3
)

DEFINITIONS = """
import torch

def double(x):
    return x * 2

def boom():
    return 1 / 0

class Thing:
    pass

class Lie(int):
    def __eq__(self, other):
        return True

def forever():
    while True:
        pass
"""

PROBE = """
import os, socket, sys
REPO = __REPO__
PROBE = {"repo": sorted(os.listdir(REPO)) if os.path.isdir(REPO) else []}
readable = []
for path in [REPO + "/autograder/README.md", REPO + "/pyproject.toml", REPO + "/source/README.md",
             REPO + "/assignments/paths.py", os.path.expanduser("~root") + "/.bashrc"]:
    try:
        with open(path) as handle:
            handle.read(1)
        readable.append(path)
    except OSError:
        pass
PROBE["readable"] = readable
try:
    socket.create_connection(("1.1.1.1", 53), timeout=1).close()
    PROBE["network"] = "connected"
except OSError as error:
    PROBE["network"] = str(error)
writable = []
for path in [sys.prefix + "/pwned", REPO + "/pwned", "/usr/pwned"]:
    try:
        open(path, "w").close()
        writable.append(path)
    except OSError:
        pass
PROBE["writable"] = writable
PROBE["uid"] = os.getuid()
PROBE["pids"] = len([p for p in os.listdir("/proc") if p.isdigit()])
PROBE["env"] = {key: os.environ.get(key, "") for key in __ENV__}
PROBE["cwd"] = sorted(os.listdir("."))
"""


@pytest.fixture(scope="module")
def sandbox():
    box = Sandbox(b'{"cells": []}', "alice.ipynb", limits=LIMITS)
    box.start()
    try:
        box.execute_cells(
            [
                ("definitions", DEFINITIONS),
                ("probe", PROBE.replace("__REPO__", repr(str(REPO))).replace("__ENV__", repr(sorted(GRADING_ENV)))),
            ]
        )
        assert [f for f in box.findings if f.code != "sandbox-degraded"] == []
        yield box
    finally:
        box.close()


@pytest.fixture(scope="module")
def student(sandbox):
    return KernelHandle(sandbox, "toy", seed=0, stand_in_source="def double(x):\n    return x * 3\n")


def test_plain_data_round_trip(student):
    x = torch.arange(6.0).reshape(2, 3)
    out = student.run(
        "result = {'t': double(x), 'n': 3, 'f': 0.5, 's': 'hi', 'pair': (1, 2.5), 'none': None, 'list': [x, True]}", x=x
    )
    assert torch.equal(out["t"], 2 * x) and type(out["t"]) is torch.Tensor
    assert out["n"] == 3 and type(out["n"]) is int and out["f"] == 0.5 and out["s"] == "hi"
    assert out["pair"] == (1, 2.5) and out["none"] is None
    assert torch.equal(out["list"][0], x) and out["list"][1] is True


def test_student_errors_come_back_without_traceback(student):
    with pytest.raises(StudentCodeError, match=r"^ZeroDivisionError: division by zero$"):
        student.run("result = boom()")


def test_objects_are_refused_and_subclasses_made_plain(student):
    with pytest.raises(StudentCodeError, match="cannot receive"):
        student.run("result = Thing()")
    out = student.run("result = Lie(3)")
    assert type(out) is int and out == 3 and out != 4


def test_snippets_are_seeded_like_the_in_process_door(student):
    torch.manual_seed(0)
    expected = torch.rand(3)
    assert torch.equal(student.run("result = torch.rand(3)"), expected)


def test_stand_ins_apply_for_one_call_only(student):
    assert student.run("result = double(3)", stand_ins=("double",)) == 9
    assert student.run("result = double(3)") == 6


def test_a_call_that_never_returns_times_out_and_the_kernel_goes_on(student):
    with pytest.raises(StudentTimeout, match="did not finish within 1 s"):
        student.run("result = forever()", timeout=1)
    assert student.run("result = double(21)") == 42


def test_results_over_the_cap_are_refused(student):
    with pytest.raises(SandboxError, match="MB"):
        student.run("result = torch.zeros(4_000_000)")
    assert student.run("result = 1") == 1


def test_isolation(sandbox, student):
    probe = student.run("result = PROBE")
    status = sandbox.status
    assert probe["env"] == {k: GRADING_ENV[k] for k in sorted(GRADING_ENV)}
    assert "alice.ipynb" in probe["cwd"]
    degraded = [f for f in sandbox.findings if f.code == "sandbox-degraded"]
    if not (status.get("mount") and status.get("network")):
        assert degraded, "missing isolation must be reported as a finding"
        isolation_unavailable(f"this machine gives no namespaces: {status.get('notes')}")
    assert probe["readable"] == [], "hidden files were readable from the kernel"
    assert set(probe["repo"]) <= {".venv"}, probe["repo"]
    assert "connected" not in probe["network"]
    if isolation_required():  # a machine that must enforce isolation gives all of it
        assert status.get("readonly_root") and status.get("proc"), (
            f"{REQUIRE_ISOLATION}=1, but the root is writable or /proc is shared: {status.get('notes')}"
        )
        assert os.geteuid() != 0 or status.get("uid") is not None, "the kernel was not given its own uid"
    if status.get("readonly_root"):
        assert probe["writable"] == []
    if status.get("proc"):
        assert probe["pids"] <= 5, "the grader's processes are visible"
    if os.geteuid() == 0 and status.get("uid") is not None:
        assert probe["uid"] != 0


def test_the_read_files_payload_reads_nothing(sandbox, student):
    if not sandbox.status.get("mount"):
        isolation_unavailable(f"no mount namespace on this machine: {sandbox.status.get('notes')}")
    from tests.fixtures import payloads

    code = payloads.by_name("read_files").code.replace("__REPO__", str(REPO))
    sandbox.execute_cells([("read_files", code)])
    assert [f for f in sandbox.findings if f.cell == "read_files"] == []
    assert student.run("result = LEAKED") == []


def test_reply_files_are_read_safely(sandbox, tmp_path):
    scratch = sandbox.scratch
    (scratch / "link.out").symlink_to("/etc/passwd")
    os.mkfifo(scratch / "fifo.out")
    with open(scratch / "big.out", "wb") as handle:
        handle.truncate(LIMITS.max_result_bytes + 1)
    (scratch / "junk.out").write_bytes(b"not a torch file")
    marker = tmp_path / "executed"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    (scratch / "evil.out").write_bytes(pickle.dumps({"ok": True, "result": Evil()}))
    for name in ("link.out", "fifo.out", "big.out", "junk.out", "evil.out", "absent.out"):
        with pytest.raises(SandboxError):
            sandbox._read_reply(scratch / name)
    assert not marker.exists()


def test_a_killed_kernel_is_restarted_and_the_notebook_replayed():
    box = Sandbox(b"{}", limits=LIMITS)
    box.start()
    try:
        box.execute_cells([("a", "x = 1"), ("b", "import os\nos._exit(1)"), ("c", "y = x + 1")])
        died = [f for f in box.findings if f.code == "kernel-died"]
        assert died and died[0].cell == "b" and "status 1" in died[0].message
        student = KernelHandle(box, "toy")
        assert student.run("result = y") == 2
        with pytest.raises(SandboxError, match="SIGKILL"):
            student.run("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
        assert student.run("result = (x, y)") == (1, 2)
        assert box.restarts == 2
        launcher = box._kernel.proc.pid
        workdir = box.workdir
    finally:
        box.close()
    assert not workdir.exists()
    assert not psutil.pid_exists(launcher) or psutil.Process(launcher).status() == psutil.STATUS_ZOMBIE


def test_closing_twice_is_harmless():
    box = Sandbox(b"{}", limits=LIMITS)
    box.close()
    box.close()
    assert box.workdir is None
