"""The sandbox without namespaces (issue #10, "trusted without namespaces"), forced on this machine with
``COURSE_SANDBOX_NO_NAMESPACES=1`` as a default Docker container or Gradescope would force it.

What must still hold: the kernel runs as an unprivileged uid that cannot read the grader's 0700 folders,
write outside its scratch (beyond the shared temporary folders, which are reported), or signal the
grader; it cannot open network sockets while its own ZMQ ipc channels work; the toy's reference still
gets full marks and the blank zero; every hostile fixture stays harmless; and what the fallback cannot
give is a ``sandbox-degraded`` finding naming it.
"""

import errno
import os
import shutil
import socket
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from assignments.course import REPO, default
from assignments.grading.sandbox import preflight
from assignments.grading.sandbox import process as kernel_process
from assignments.grading.sandbox.limits import Limits
from assignments.grading.sandbox.session import KernelHandle, Sandbox
from assignments.grading.testkit.errors import SandboxError, SandboxRefused
from tests.fixtures import batch, fallback, payloads, toy
from tests.helpers import needs_isolation

# One worker runs this module (`--dist loadgroup`): its module fixtures start one sandbox and grade one
# fallback batch, not one per worker.
pytestmark = [
    needs_isolation(None if os.geteuid() == 0 else fallback.ROOT_ONLY),
    pytest.mark.xdist_group("sandbox_fallback"),
]

LIMITS = Limits(
    cell_timeout=15, call_timeout=5, interrupt_grace=1, memory_bytes=2**30, max_restarts=2, total_timeout=120
)
REFUSED = errno.errorcode[errno.EOPNOTSUPP]  # the seccomp filter's answer (spelled ENOTSUP on Linux)

PROBE = """
import ctypes, errno, os, signal, socket, sys
PROBE = {"uid": os.getuid()}

def attempt(action):
    try:
        action()
        return "done"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))

def read(path):
    with open(path) as handle:
        handle.read(1)

def write(path):
    with open(path, "w") as handle:
        handle.write("x")

PROBE["read_secret"] = attempt(lambda: read(__SECRET__ + "/answer_key.py"))
PROBE["list_secret"] = attempt(lambda: os.listdir(__SECRET__))
PROBE["sockets"] = {name: attempt(lambda family=getattr(socket, name): socket.socket(family).close())
                    for name in ("AF_INET", "AF_INET6", "AF_NETLINK", "AF_PACKET")}
PROBE["connect"] = attempt(lambda: socket.create_connection(("127.0.0.1", __PORT__), timeout=2).close())
PROBE["unix"] = attempt(lambda: [s.close() for s in socket.socketpair()])
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)   # struct io_uring_params, zeroed
ring = libc.syscall(425, 4, params)
PROBE["io_uring"] = "done" if ring >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
PROBE["write"] = {path: attempt(lambda path=path: write(path))
                  for path in (__SECRET__ + "/pwned", __OPEN__ + "/pwned", sys.prefix + "/pwned",
                               os.path.dirname(os.getcwd()) + "/pwned", "/usr/pwned")}
PROBE["write_scratch"] = attempt(lambda: write("mine"))
PROBE["kill_grader"] = attempt(lambda: os.kill(__GRADER__, signal.SIGTERM))
"""


# ------------------------------------------------------------------ where the kernel's uid cannot reach Python
@pytest.fixture
def python_out_of_reach(tmp_path, monkeypatch):
    """The forced fallback with a Python installation the kernels' uids cannot reach, as under a 0700
    ``/root`` (pyenv's and conda's default place). A 0700 folder joins the installation's folders, so the
    case holds whether or not this machine's own Python is reachable (it is under /usr, or another test
    holds fallback.searchable's grant); the preflight's verdicts of this process are set aside."""
    private = tmp_path / "python-installation"  # pytest's temporary root is 0700: no other uid gets in
    private.mkdir()
    installation = kernel_process.python_roots()
    monkeypatch.setattr(kernel_process, "python_roots", lambda: [*installation, str(private)])
    monkeypatch.setattr(preflight, "_VERDICTS", {})
    with fallback.env_switch():
        yield private


def test_where_the_kernels_uid_cannot_reach_python_no_kernel_starts(python_out_of_reach):
    """Before, the kernel ran as root without capabilities, could open none of the files the grader handed
    to its uid, and every hidden test failed correct code with PermissionError (0/36 for the transformers
    reference)."""
    box = Sandbox(b"{}", limits=LIMITS)
    with pytest.raises(SandboxError) as refused:
        box.start()
    message = str(refused.value)
    assert "cannot reach the Python installation" in message and str(python_out_of_reach) in message, message


def test_the_preflight_refuses_naming_the_folder_and_what_to_change(python_out_of_reach):
    why = preflight.refusal()
    assert why is not None, "the preflight passed a machine whose kernels cannot reach Python"
    assert str(python_out_of_reach) in why, f"the refusal should name the folder others cannot search: {why}"
    assert "nothing is graded" in why and "outside /root" in why and "namespaces" in why, (
        f"the refusal should say that nothing is graded and what to change: {why}"
    )


def test_a_batch_refuses_before_grading_anyone(python_out_of_reach, tmp_path):
    from assignments.grading.doors import batch as batch_door
    from tests.fixtures.batch import grade_or_die

    jobs = [batch_door.Job("a", "a.ipynb"), batch_door.Job("b", "b.ipynb")]
    with pytest.raises(SandboxRefused):
        batch_door.grade_batch(
            default().assignment("toy"), jobs, tmp_path / "out", workers=2, progress=False, grader=grade_or_die
        )
    assert not (tmp_path / "out").exists(), "a refused batch wrote records"


def test_course_grade_says_not_graded_and_why(python_out_of_reach, tmp_path, capsys):
    from assignments import cli
    from tests.helpers import QUICKEST

    upload = tmp_path / "class"
    upload.mkdir()
    shutil.copy(next((REPO / "release" / QUICKEST).glob("*.ipynb")), upload / f"alice_{QUICKEST}.ipynb")
    status = cli.main(["grade", QUICKEST, str(upload), "--out", str(tmp_path / "run"), "--workers", "1"])
    said = capsys.readouterr().err
    assert status == 1, "course grade should fail where the sandbox cannot run students' code"
    assert "not graded" in said and str(python_out_of_reach) in said, said
    assert not (tmp_path / "run" / "results").exists() or not any((tmp_path / "run" / "results").iterdir())


def test_the_gradescope_runner_scores_nothing_and_blames_the_grader_not_the_student(
    python_out_of_reach, tmp_path, capsys
):
    from assignments.platforms.gradescope import runner as gradescope_runner
    from tests.helpers import QUICKEST

    upload = tmp_path / "submission"
    upload.mkdir()
    shutil.copy(next((REPO / "source" / QUICKEST).glob("*.ipynb")), upload / f"{QUICKEST}.ipynb")
    # The grader's failure is not the student's 0 (issue #43 item 7): no results.json, so Gradescope shows
    # "The autograder failed to execute correctly", and the reason in the staff-only log.
    assert gradescope_runner.run(default().assignment(QUICKEST), upload, tmp_path / "results.json") is None
    assert not (tmp_path / "results.json").exists(), "a refused sandbox should leave no score for Gradescope"
    staff = capsys.readouterr().out
    assert "GRADER FAILURE" in staff, staff
    assert "sandbox-refused" in staff and str(python_out_of_reach) in staff, f"staff should read why:\n{staff}"


def test_the_preflight_passes_in_the_fallback_where_the_uid_reaches_python():
    with fallback.forced():
        assert preflight.refusal() is None, "the preflight refused the fallback with a reachable Python"


@pytest.fixture(scope="module")
def grader_files():
    """A 0700 folder with a secret, as the bundle's source folder is after setup; a 0755 one beside it.

    Both under a folder every uid can search (pytest's own temporary root is 0700, which would hide the
    secret whatever its own mode)."""
    root = Path(tempfile.mkdtemp(prefix="course-grader-files-"))
    os.chmod(root, 0o755)
    secret = root / "secret"
    secret.mkdir(mode=0o700)
    (secret / "answer_key.py").write_text("ANSWER = 42\n")
    os.chmod(secret / "answer_key.py", 0o644)  # only the folder's mode protects it
    opened = root / "open"
    opened.mkdir(mode=0o755)
    yield {"secret": str(secret), "open": str(opened)}
    shutil.rmtree(root)


@pytest.fixture(scope="module")
def listener():
    """A TCP port on loopback that would accept a connection from anyone allowed to make one."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    yield server.getsockname()[1]
    server.close()


@pytest.fixture(scope="module")
def sandbox(grader_files, listener):
    with fallback.forced():
        box = Sandbox(b'{"cells": []}', "eve.ipynb", limits=LIMITS, hide=(grader_files["secret"],))
        box.start()
        try:
            code = (
                PROBE.replace("__SECRET__", repr(grader_files["secret"]))
                .replace("__OPEN__", repr(grader_files["open"]))
                .replace("__PORT__", str(listener))
                .replace("__GRADER__", str(os.getpid()))
            )
            box.execute_cells([("probe", code)])
            assert [f for f in box.findings if f.code != "sandbox-degraded"] == [], box.findings
            yield box
        finally:
            box.close()


@pytest.fixture(scope="module")
def probe(sandbox):
    return KernelHandle(sandbox, "toy").run("result = PROBE")


def degraded(findings) -> str:
    messages = [f.message for f in findings if f.code == "sandbox-degraded"]
    assert len(messages) == 1, f"expected one sandbox-degraded finding, got {messages}"
    return messages[0]


def test_the_switch_gives_no_namespaces_and_says_so(sandbox):
    status = sandbox.status
    assert not status["mount"] and not status["network"] and not status["pid"], status
    assert status["fallback"]["dropped"], f"the kernel was not dropped to its own uid: {status['notes']}"
    assert "fallback forced" in degraded(sandbox.findings)


def test_the_kernel_runs_as_an_unprivileged_uid(sandbox, probe):
    assert probe["uid"] != 0, "the kernel runs as root in the fallback"
    assert probe["uid"] == sandbox.status["uid"]


def test_the_kernel_cannot_read_a_0700_folder_of_the_grader(probe):
    assert probe["read_secret"] == "EACCES", f"reading the secret gave {probe['read_secret']}, expected EACCES"
    assert probe["list_secret"] == "EACCES", f"listing the secret gave {probe['list_secret']}, expected EACCES"


def test_the_kernel_cannot_open_network_sockets_but_its_own_channels_work(probe):
    assert set(probe["sockets"].values()) == {REFUSED}, (
        f"non-Unix sockets should be refused with EOPNOTSUPP: {probe['sockets']}"
    )
    assert probe["connect"] != "done", "the kernel connected to a listening port on 127.0.0.1"
    assert probe["io_uring"] == REFUSED, f"io_uring_setup gave {probe['io_uring']}, expected refused"
    assert probe["unix"] == "done", "socketpair (AF_UNIX) must keep working"


def test_the_kernel_cannot_write_outside_its_scratch(probe):
    assert probe["write_scratch"] == "done"
    written = [path for path, outcome in probe["write"].items() if outcome == "done"]
    assert written == [], f"the kernel wrote outside its scratch folder: {written}"


def test_the_kernel_cannot_signal_the_grader(probe):
    assert probe["kill_grader"] == "EPERM", f"kill(grader) gave {probe['kill_grader']}, expected EPERM"


def test_what_the_fallback_cannot_hide_is_named_in_the_finding(sandbox, grader_files):
    message = degraded(sandbox.findings)
    assert "seccomp" in message and f"uid {sandbox.status['uid']}" in message, message
    assert "private process list" in message and "every process" in message, message
    for shared in sandbox.status["fallback"]["writable"]:
        assert shared in message, f"the writable shared folder {shared} is not reported: {message}"
    assert grader_files["secret"] not in sandbox.status["fallback"]["readable"], (
        "a 0700 folder of the grader was reported readable by the kernel's uid"
    )
    if os.stat(REPO).st_mode & 0o001:  # world-searchable repository: the finding must say so
        assert str(REPO) in message, message


def test_the_read_files_payload_reads_nothing_of_the_hidden_folders(sandbox, grader_files):
    code = payloads.by_name("read_files").code.replace("__REPO__", grader_files["secret"])
    sandbox.execute_cells([("read_files", code)])
    leaked = KernelHandle(sandbox, "toy").run("result = LEAKED")
    secret = [p for p in leaked if grader_files["secret"] in p or "ANSWER" in p]
    assert secret == [], f"the payload read the grader's 0700 folder: {secret}"


# ------------------------------------------------------------------ the toy class under the switch
@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The toy reference, its blank release and every hostile payload, graded by three workers (most of a
    cold kernel's start is waiting)."""
    the_toy = toy.build(tmp_path_factory.mktemp("fallback-toy") / "toy")
    os.chmod(the_toy.folder, 0o700)  # the hidden tests and stand-ins, as setup leaves the bundle
    jobs = []
    for payload in payloads.slowest_first(payloads.payloads()):
        path = the_toy.write(payloads.inject(the_toy.reference(), payload, REPO), f"{payload.name}.ipynb")
        limits = payloads.limits_for(payload, LIMITS)
        jobs.append((f"hostile:{payload.name}", str(the_toy.folder), toy.NAME, str(path), batch.limits_dict(limits)))
    for label, nb in (("toy:reference", the_toy.reference()), ("toy:blank", the_toy.release)):
        jobs.append(
            (
                label,
                str(the_toy.folder),
                toy.NAME,
                str(the_toy.write(nb, f"{label[4:]}.ipynb")),
                batch.limits_dict(LIMITS),
            )
        )
    with fallback.forced():
        results = batch.grade_all(jobs, workers=3)
    from assignments.results.model import SubmissionResult

    return {label: SubmissionResult.from_dict(value) for label, value in results.items()}


def test_toy_reference_gets_full_marks_and_blank_zero_without_namespaces(graded):
    reference, blank = graded["toy:reference"], graded["toy:blank"]
    assert reference.scores() == {"add_tests": 2.0, "scale_tests": 3.0, "scale_written": None}, [
        (t.name, t.message) for q in reference.questions for t in q.tests if t.outcome != "passed"
    ]
    assert blank.autograded_points == 0 and blank.status == "graded"


@pytest.mark.parametrize("payload", payloads.payloads(), ids=[p.name for p in payloads.payloads()])
def test_hostile_payload_is_harmless_without_namespaces(graded, payload):
    result, honest = graded[f"hostile:{payload.name}"], graded["toy:reference"]
    assert result.status == "graded", result.findings
    found = {f.code for f in result.findings}
    assert payload.expect <= found, (payload.mistake, [(f.code, f.message) for f in result.findings])
    for question in result.questions:
        if question.kind == "autograded":
            assert question.points <= honest.question(question.grade_id).points, (
                f"{payload.name} inflated {question.grade_id} without namespaces"
            )
    assert "seccomp" in degraded(result.findings), "every result must say the fallback was in force"


def test_a_daemon_that_left_the_kernel_tree_dies_with_the_sandbox():
    daemon = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(600)\n"
        "    os._exit(0)\n"
        "time.sleep(0.5)\n"
    )
    with fallback.forced():
        box = Sandbox(b"{}", limits=LIMITS)
        box.start()
        try:
            box.execute_cells([("daemon", daemon)])
            uid = box.status["uid"]
            alive = [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == uid]
            assert alive, "the daemon did not start, so nothing is tested"
        finally:
            box.close()
    time.sleep(0.2)
    left = [p.pid for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert left == [], f"processes of the sandbox's uid {uid} outlived it: {left}"
