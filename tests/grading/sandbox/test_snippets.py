"""The snippet protocol (assignments/grading/sandbox/snippets.py) without a kernel: the bootstrap and the
serve cell run in a plain namespace standing in for the kernel's, so what crosses the boundary (request
file, reply file, decoding with limits) is checked on its own."""

from __future__ import annotations

import os
import stat
import sys
import types

import pytest
import torch

from assignments.grading.sandbox import snippets
from assignments.grading.sandbox.limits import Limits
from assignments.grading.testkit.errors import SandboxError, StudentCodeError
from assignments.grading.testkit.kernel_text import KERNEL_TEXT_CHARS

LIMITS = Limits()


@pytest.fixture
def kernel_namespace():
    """The kernel's user namespace with the runtime installed by the real bootstrap cell."""
    user_ns = {}
    shell = types.SimpleNamespace(user_ns=user_ns)
    exec(snippets.bootstrap_code(), {"get_ipython": lambda: shell})
    yield user_ns
    sys.modules.pop(snippets.RUNTIME_MODULE, None)


def _call(tmp_path, user_ns, code, **inputs):
    request, reply = tmp_path / "request.pt", tmp_path / "reply.pt"
    snippets.write_request(request, code, inputs, "", (), seed=0)
    exec(snippets.serve_code(request, reply, LIMITS.max_result_bytes), {"__import__": __import__})
    return snippets.reply_value(snippets.read_reply(reply, LIMITS), LIMITS)


def test_a_snippet_runs_in_the_student_namespace_and_its_result_comes_back_as_plain_data(tmp_path, kernel_namespace):
    exec("def add(a, b):\n    return a + b\n", kernel_namespace)
    result = _call(tmp_path, kernel_namespace, "result = {'sum': add(x, 2)}", x=torch.ones(3))
    assert torch.equal(result["sum"], torch.full((3,), 3.0))


def test_the_request_file_is_readable_by_its_owner_only(tmp_path):
    path = tmp_path / "request.pt"
    snippets.write_request(path, "result = 1", {}, "secret stand-in", (), seed=0)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_student_exception_comes_back_as_short_untrusted_text(tmp_path, kernel_namespace):
    exec("def boom():\n    raise ValueError('x' * 5000)\n", kernel_namespace)
    with pytest.raises(StudentCodeError) as raised:
        _call(tmp_path, kernel_namespace, "result = boom()")
    assert str(raised.value).startswith("ValueError: ") and len(str(raised.value)) <= KERNEL_TEXT_CHARS


def test_a_result_the_grader_cannot_receive_is_the_students_error(tmp_path, kernel_namespace):
    with pytest.raises(StudentCodeError, match="cannot receive"):
        _call(tmp_path, kernel_namespace, "result = object()")


def test_a_reply_that_is_a_link_is_refused_without_being_followed(tmp_path):
    target = tmp_path / "elsewhere.pt"
    target.write_bytes(b"not read")
    link = tmp_path / "reply.pt"
    link.symlink_to(target)
    with pytest.raises(SandboxError, match="wrote no result"):
        snippets.read_reply(link, LIMITS)
    assert target.read_bytes() == b"not read"
