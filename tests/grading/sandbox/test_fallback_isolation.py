"""Students kept apart without namespaces (issue 23, item 2), in the forced fallback as CI runs it.

Two attacks of our own, each against real sandboxes:
- **classmate harvesting**: a kernel looks through every process's command line for a classmate's
  scratch folder (the kernel's ``-f <scratch>/kernel.json`` and the launcher's JSON configuration used to
  name it), then, told the exact path as an upper bound on what it could learn, tries to list the folder
  and read the classmate's notebook and connection file;
- **/tmp relay**: a kernel leaves files (what a stand-in would be) in /tmp, /var/tmp and /dev/shm for a
  later kernel; the sandbox removes everything its uid owns there when it closes, and counts it.
"""

import os
import secrets
import stat
from pathlib import Path

from assignments.grading.sandbox.limits import Limits
from assignments.grading.sandbox.session import KernelHandle, Sandbox
from tests.fixtures import fallback
from tests.helpers import needs_isolation

pytestmark = needs_isolation(None if os.geteuid() == 0 else fallback.ROOT_ONLY)

LIMITS = Limits(cell_timeout=15, call_timeout=5, interrupt_grace=1, total_timeout=60, max_restarts=0)
MARK = "victims-own-answer-" + secrets.token_hex(4)

HARVEST = """
import errno, os
def _attempt(action):
    try:
        action()
        return "done"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))
def _read(path):
    with open(path, "rb") as handle:
        handle.read(1)
_named = []
for _pid in os.listdir("/proc"):
    try:
        with open(f"/proc/{_pid}/cmdline", "rb") as _handle:
            _argv = _handle.read().decode("utf-8", "replace")
    except OSError:
        continue
    if VICTIM in _argv:
        _named.append(_argv.replace("\\0", " ")[:200])
HARVESTED = {"named": _named, "list": _attempt(lambda: os.listdir(VICTIM)),
             "notebook": _attempt(lambda: _read(VICTIM + "/victim.ipynb")),
             "connection": _attempt(lambda: _read(VICTIM + "/kernel.json"))}
"""


def started(submission: bytes, name: str) -> Sandbox:
    box = Sandbox(submission, name, limits=LIMITS)
    box.start()
    assert box.status["fallback"]["dropped"], box.status
    return box


def test_a_classmate_finds_no_scratch_in_any_command_line_and_cannot_read_one():
    with fallback.forced():
        victim = started(b'{"cells": [], "mark": "' + MARK.encode() + b'"}', "victim.ipynb")
        attacker = None
        try:
            attacker = started(b'{"cells": []}', "attacker.ipynb")
            assert attacker.status["uid"] != victim.status["uid"], "one uid per concurrent sandbox"
            info = os.stat(victim.scratch)
            assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == victim.status["uid"], oct(info.st_mode)
            assert stat.S_IMODE(os.stat(victim.scratch / "victim.ipynb").st_mode) == 0o600
            attacker.execute_cells([("harvest", f"VICTIM = {str(victim.scratch)!r}\n" + HARVEST)])
            found = KernelHandle(attacker, "toy").run("result = HARVESTED")
        finally:
            victim.close()
            if attacker is not None:
                attacker.close()
    assert found["named"] == [], f"a process's command line names the classmate's scratch: {found['named']}"
    assert (found["list"], found["notebook"], found["connection"]) == ("EACCES",) * 3, found


RELAY = """
import os
TOKEN = {token!r}
with open(f"/tmp/relay-{{TOKEN}}.py", "w") as handle:
    handle.write("def scaled_dot_product(q, k, v): ...")
os.chmod(f"/tmp/relay-{{TOKEN}}.py", 0o644)
os.makedirs(f"/var/tmp/relay-{{TOKEN}}/deeper")
open(f"/var/tmp/relay-{{TOKEN}}/deeper/key", "w").close()
open(f"/dev/shm/relay-{{TOKEN}}", "w").close()
"""


def test_what_a_kernel_leaves_in_shared_temporary_folders_is_removed_and_counted():
    token = secrets.token_hex(6)
    left = [f"/tmp/relay-{token}.py", f"/var/tmp/relay-{token}", f"/dev/shm/relay-{token}"]
    with fallback.forced():
        box = started(b'{"cells": []}', "relay.ipynb")
        try:
            box.execute_cells([("relay", RELAY.format(token=token))])
            assert all(os.path.lexists(path) for path in left), "the relay wrote nothing, so nothing is tested"
        finally:
            box.close()
    assert [path for path in left if os.path.lexists(path)] == [], "files of the sandbox's uid outlived it"
    removed = [f.message for f in box.findings if f.code == "shared-tmp-removed"]
    assert removed and removed[0].startswith("3 "), box.findings


def test_where_kernels_would_share_a_uid_the_batch_grades_one_at_a_time(tmp_path, monkeypatch, capsys):
    """No namespaces and no root: every kernel runs as the grader's uid, so two at a time could read each
    other's scratch. The batch says so and grades one at a time (the grader here is root, so the reason
    is given as such a machine would give it)."""
    from assignments.course import default
    from assignments.grading.doors import batch
    from assignments.grading.sandbox import process as kernel_process
    from tests.fixtures.batch import grade_or_die

    reason = "without namespaces and without root every kernel runs as the grader's uid"
    monkeypatch.setattr(kernel_process, "shared_kernel_uid", lambda: reason)
    jobs = [batch.Job("a", "a.ipynb"), batch.Job("b", "b.ipynb")]
    batch.grade_batch(
        default().assignment("toy"), jobs, tmp_path, workers=2, progress=True, grader=grade_or_die, warm_kernels=False
    )
    said = capsys.readouterr().out
    assert "grading one submission at a time instead of 2" in said and reason in said, said
    assert "with 1 worker(s)" in said, said


DEEP = """
import os
fd = os.open("/tmp", os.O_RDONLY)
for name in ["deep-{token}"] + ["d"] * {depth}:
    os.mkdir(name, dir_fd=fd)
    child = os.open(name, os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = child
os.close(os.open("stand-in.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
os.close(fd)
"""


def test_a_1200_deep_folder_in_tmp_stops_no_sandbox_and_no_later_one():
    """Issue #43 item 8: a kernel makes /tmp/deep-*/d/.../d 1,200 levels deep; its sandbox closes cleanly and
    removes it. Then, with a world-writable 1,200-deep tree of another owner in /tmp (which the next uid may
    write into, so the sweep must look, within its bound), the next sandbox closes cleanly too, removes its
    own leftover and says what it could not look through. Closing runs with the recursion limit just above
    the caller's depth (Python 3.10/3.11's recursive walkers, emulated: fixtures/deep.py)."""
    from assignments import trees
    from tests.fixtures.deep import DEPTH, deep_tree, shallow_stack

    token = secrets.token_hex(6)
    made = f"/tmp/deep-{token}"
    other = f"/tmp/deep-other-{token}"
    try:
        with fallback.forced():
            first = started(b'{"cells": []}', "deep.ipynb")
            try:
                first.execute_cells([("deep", DEEP.format(token=token, depth=DEPTH))])
                assert os.lstat(made).st_uid == first.status["uid"], "the kernel made no deep folder"
            finally:
                with shallow_stack():
                    first.close()
            assert not os.path.lexists(made), "the kernel's 1,200-deep folder outlived its sandbox"
            assert first._context is None and first._client is None, "zmq context or client left open"
            removed = [f.message for f in first.findings if f.code == "shared-tmp-removed"]
            assert removed and removed[0].startswith("1 "), first.findings

            deep_tree(Path(other), DEPTH, mode=0o777)
            second = started(b'{"cells": []}', "after.ipynb")
            try:
                second.execute_cells([("relay", RELAY.format(token=token))])
            finally:
                with shallow_stack():
                    second.close()
        assert not [p for p in (f"/tmp/relay-{token}.py", f"/var/tmp/relay-{token}") if os.path.lexists(p)]
        codes = {f.code: f.message for f in second.findings}
        assert codes.get("shared-tmp-removed", "").startswith("3 "), second.findings
        assert "levels deep were not looked in" in codes.get("sandbox-cleanup-incomplete", ""), second.findings
    finally:
        for path in (made, other):
            trees.remove_tree(path)
