"""Attacks on the standalone door from inside the student's kernel (issue #15): each must end as a
finding or a refused reply for that student, never as a grader crash, a file changed outside the
scratch folder, or text of the answer key in feedback.

One sandbox per isolation mode serves the module (a kernel start costs a few seconds); reply decoding is checked on
crafted archives without a kernel.
"""

import io
import os
import tempfile
import zipfile

import pytest
import torch

from assignments.grading.doors.standalone import grade_submission
from assignments.grading.environment import GRADING_ENV
from assignments.grading.sandbox.limits import Limits
from assignments.grading.sandbox.reply import check_value, decode_reply
from assignments.grading.sandbox.session import KernelHandle, Sandbox
from assignments.grading.submission.audit import audit_source
from assignments.grading.testkit.errors import SandboxError, StudentCodeError
from assignments.grading.testkit.handle import answered_by
from assignments.grading.testkit.kernel_text import KERNEL_RUN_CHARS, KERNEL_TEXT_CHARS, untrusted_text
from assignments.grading.testkit.runtime import to_bytes
from assignments.grading.testkit.stand_ins import extract_definitions
from tests.fixtures import fallback, toy
from tests.helpers import isolation_unavailable

LIMITS = Limits(
    cell_timeout=20,
    call_timeout=10,
    interrupt_grace=2,
    total_timeout=120,
    max_result_bytes=4 * 2**20,
    max_restarts=8,
    scratch_bytes=32 * 2**20,
)

SECRET = "def secret_answer(x):\n    return x * 2  # this line must never reach feedback\n"


@pytest.fixture(scope="module", params=fallback.MODES)
def sandbox(request):
    """Every kernel attack runs three times: with the machine's namespaces, in the forced no-namespace
    fallback (as root only: it drops the kernel to another uid), and in a kernel forked from a warm
    zygote, as batches start them."""
    if request.param == "no-namespaces" and os.geteuid() != 0:
        isolation_unavailable(fallback.ROOT_ONLY)
    with fallback.mode(request.param):
        box = Sandbox(b'{"cells": []}', "mallory.ipynb", limits=LIMITS)
        box.start()
        try:
            assert bool(box.status.get("warm")) == (request.param == "warm"), box.status
            yield box
        finally:
            box.close()


@pytest.fixture(scope="module")
def student(sandbox):
    return KernelHandle(sandbox, "toy", seed=0, stand_in_source=SECRET)


# ------------------------------------------------------------------ replies decoded with limits
def test_a_stride_zero_tensor_claiming_1e18_elements_is_refused_before_use():
    huge = torch.zeros(1).as_strided((10**9, 10**9), (0, 0))
    with pytest.raises(SandboxError, match="elements"):
        decode_reply(to_bytes({"ok": True, "result": huge}), LIMITS)


def test_a_reply_whose_tensors_claim_a_gpu_is_read_onto_the_cpu(monkeypatch):
    """A kernel has no accelerator, but its reply is bytes its code wrote: a storage tagged "cuda:0" must not
    make the grader restore it onto a GPU (on a GPU host) or refuse a value that is right (on a CPU host)."""
    import torch.serialization

    monkeypatch.setattr(torch.serialization, "location_tag", lambda storage: "cuda:0")
    forged = to_bytes({"ok": True, "result": torch.arange(3.0)})
    monkeypatch.undo()
    assert b"cuda:0" in zipfile.ZipFile(io.BytesIO(forged)).read("archive/data.pkl")
    result = decode_reply(forged, LIMITS)["result"]
    assert result.device.type == "cpu" and torch.equal(result, torch.arange(3.0))


def test_a_tensor_reaching_outside_its_storage_is_refused():
    bad = torch.zeros(4)
    bad.untyped_storage().resize_(4)  # four float32 elements over a storage of one
    with pytest.raises(SandboxError, match="outside its storage"):
        check_value(bad, 2**20, 10, 4)


def test_an_archive_that_expands_beyond_the_cap_is_refused_from_its_directory():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("archive/data.pkl", b"\0" * (LIMITS.max_result_bytes + 1))
    assert len(buffer.getvalue()) < 64 * 1024  # small on the wire, big once inflated
    with pytest.raises(SandboxError, match="expands to"):
        decode_reply(buffer.getvalue(), LIMITS)


def test_deeply_nested_and_oversized_replies_are_refused():
    nested = 0
    for _ in range(LIMITS.max_reply_depth + 2):
        nested = [nested]
    with pytest.raises(SandboxError, match="nested"):
        decode_reply(to_bytes({"ok": True, "result": nested}), LIMITS)
    with pytest.raises(SandboxError, match="more than 3 values"):
        check_value([1, 2, 3, 4], 2**20, 3, 4)


def test_a_long_string_in_a_reply_is_refused_even_as_a_dictionary_key():
    key_text = SECRET * 10  # what a kernel that kept its stand-ins would send back as a "name"
    for reply in ({"names": [key_text]}, {key_text: 1}):
        with pytest.raises(SandboxError, match="characters"):
            decode_reply(to_bytes({"ok": True, "result": reply}), LIMITS)
    name = "x" * LIMITS.max_reply_string_chars
    assert decode_reply(to_bytes({"ok": True, "result": {name: name}}), LIMITS)["result"] == {name: name}


def test_a_plain_reply_survives_decoding_unchanged():
    x = torch.arange(6.0).reshape(2, 3).t()  # not contiguous: still a valid strided tensor
    out = decode_reply(to_bytes({"ok": True, "result": {"x": x, "n": [1, 2.5, "s", None, (True,)]}}), LIMITS)
    assert torch.equal(out["result"]["x"], x) and out["result"]["n"] == [1, 2.5, "s", None, (True,)]


# ------------------------------------------------------------------ feedback carries grader text only
def test_exception_text_from_the_kernel_is_cut_to_a_short_first_line(student):
    student.sandbox.execute_cells([("smuggle", f"SECRET = {SECRET!r}\nclass Exfiltrate(Exception):\n    pass\n")])
    with pytest.raises(StudentCodeError) as caught:
        student.run("raise Exfiltrate(SECRET.replace(chr(10), ' ') * 20)", stand_ins=("secret_answer",))
    message = str(caught.value)
    assert len(message) <= KERNEL_TEXT_CHARS and "\n" not in message, message
    with pytest.raises(StudentCodeError) as caught:
        student.run("raise type(SECRET, (Exception,), {})('x')")
    assert str(caught.value).startswith("Exception"), "a type name that is not an identifier is replaced"


def test_untrusted_text_keeps_the_type_and_start_of_the_message():
    assert untrusted_text("ZeroDivisionError", "division by zero") == "ZeroDivisionError: division by zero"
    assert untrusted_text("ValueError", "a\x1b[2Jb\nsecond line") == "ValueError: a?[2Jb"
    assert untrusted_text("ValueError", "x" * 500) == f"ValueError: {'x' * KERNEL_RUN_CHARS}..."
    assert untrusted_text("Exfiltrate", "x") == "Exception: x", "a class the student named is not shown"


# ------------------------------------------------------------------ the sandbox's files
def test_the_kernel_sees_no_accelerator(student):
    assert GRADING_ENV["CUDA_VISIBLE_DEVICES"] == ""
    out = student.run("import os, torch\nresult = [os.environ.get('CUDA_VISIBLE_DEVICES'), torch.cuda.is_available()]")
    assert out == ["", False]


def test_restart_does_not_follow_a_link_or_trip_on_a_folder_in_place_of_kernel_json(sandbox, student):
    with tempfile.NamedTemporaryFile("w", suffix=".grader-file", delete=False) as outside:
        outside.write("grader data")
    os.chmod(outside.name, 0o666)  # writable by the kernel's user: only the grader's own write is tested
    try:
        for planted in (
            f"os.symlink({outside.name!r}, 'kernel.json')",
            "os.mkdir('kernel.json')",
            "os.mkdir('k-1'); open('k-1/x', 'w').close()",
        ):
            sandbox.execute_cells(
                [
                    (
                        "plant",
                        f"import os\nos.remove('kernel.json') if os.path.lexists("
                        f"'kernel.json') and not os.path.isdir('kernel.json') else None\n"
                        f"{planted}\n",
                    )
                ]
            )
            sandbox.restart("a test of restart")
            assert sandbox.broken is None, sandbox.broken
            assert student.run("result = 40 + 2") == 42
        with open(outside.name) as handle:
            assert handle.read() == "grader data", "the grader wrote through a link in the scratch folder"
    finally:
        os.unlink(outside.name)


def test_filling_the_scratch_folder_stops_the_kernel_with_a_finding(sandbox, student):
    sandbox.execute_cells(
        [
            (
                "fill",
                "import time\nfor i in range(200):\n"
                "    open(f'fill-{i}', 'wb').write(b'x' * 2 ** 20)\n    time.sleep(0.01)\n",
            )
        ]
    )
    assert any("MB of files" in f.message for f in sandbox.findings), [f.message for f in sandbox.findings]
    assert student.run("result = 1") == 1  # restarted; the filled scratch went with the old kernel's files


def test_many_empty_files_in_the_scratch_folder_stop_the_kernel_with_a_finding(sandbox, student):
    # bytes would not notice them: 30,000 empty files cost inodes only
    sandbox.execute_cells(
        [("inodes", "import time\nfor i in range(30000):\n    open(f'e-{i}', 'w').close()\ntime.sleep(2)\n")]
    )
    assert any("made more than" in f.message for f in sandbox.findings), [f.message for f in sandbox.findings]
    assert student.run("result = 1") == 1  # restarted; the files went with the old kernel's


def test_system_sockets_and_runtime_folders_are_hidden(sandbox, student):
    """With a mount namespace the kernel finds /run, /var/run and /var/lib/docker empty. The forced fallback
    has none by design: there the student's record must say that files were not hidden."""
    if not sandbox.status.get("mount"):
        degraded = " ".join(f.message for f in sandbox.findings if f.code == "sandbox-degraded")
        if "fallback forced" in degraded:
            assert "hidden files" in degraded, degraded
            return
        isolation_unavailable("no mount namespace on this machine (reported as sandbox-degraded)")
    out = student.run(
        "import os\nresult = {p: sorted(os.listdir(p)) if os.path.isdir(p) else [] "
        "for p in ('/run', '/var/run', '/var/lib/docker')}"
    )
    assert out == {"/run": [], "/var/run": [], "/var/lib/docker": []}, out


def test_a_sandbox_that_cannot_be_prepared_is_that_students_finding(toy_assignment, tmp_path, monkeypatch):
    the_toy = toy_assignment
    path = the_toy.write(the_toy.reference(), "bob-unprepared.ipynb")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    result = grade_submission(the_toy.assignment, path, "bob", limits=LIMITS, **the_toy.overrides())
    codes = [f.code for f in result.findings]
    assert "kernel-start-failed" in codes and "grader-error" not in codes, codes


# ------------------------------------------------------------------ grader errors are the grader's
def test_the_audit_survives_deep_nesting_and_huge_cells():
    assert audit_source("x = " + "-" * 100_000 + "1") == ["is nested too deeply to audit"]
    assert audit_source("x = 1\n" * 400_000)[0].endswith("not audited")


# ------------------------------------------------------------------ stand-ins: per call, after their question
KEY = """import math

import torch

SCALE = 2.0


def helper(x):
    return x * SCALE


@staticmethod
def first(x):
    return helper(x)


class Second:
    pass


def third(x):
    return math.sqrt(x)
"""


def test_a_call_receives_only_the_definitions_it_asked_for_and_what_they_use():
    sent = extract_definitions(KEY, ("first",))
    assert "def first" in sent and "def helper" in sent and "SCALE = 2.0" in sent and "@staticmethod" in sent
    assert "Second" not in sent and "third" not in sent
    assert "import math" in sent  # imports always go with a definition
    with pytest.raises(KeyError, match="nothing"):
        extract_definitions(KEY, ("nothing",))


def test_a_stand_in_is_refused_until_its_question_is_scored():
    from assignments.grading.testkit.errors import StandInRefused
    from assignments.grading.testkit.handle import LocalHandle

    the_toy_owners = answered_by(toy.release_notebook(toy.source_notebook()))
    assert the_toy_owners["add"] == "add_tests" and the_toy_owners["scale"] == "scale_tests"
    handle = LocalHandle({"add": lambda a, b: a - b, "scale": lambda x, k: 0}, "toy")
    handle._stand_in_source = toy.STAND_INS
    handle.owners, handle.order = the_toy_owners, {"add_tests": 0, "scale_tests": 1}
    handle.question = "scale_tests"
    assert handle.run("result = add(2, 3)", stand_ins=("add",)) == 5
    with pytest.raises(StandInRefused, match="scale_tests"):
        handle.run("result = scale(2, 3)", stand_ins=("scale",))


def test_kernel_value_shows_a_type_and_a_short_prefix_only():
    from assignments.grading.testkit.checks import kernel_value

    assert kernel_value({"a": 1}).startswith("dict: ")
    long_key = "def scaled_dot_product(q, k, v, mask=None):\n    return q" * 3
    shown = kernel_value(long_key)
    assert shown == "str: 'def scaled_dot_..." and "return" not in shown
