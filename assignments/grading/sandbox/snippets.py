"""The snippet protocol between the grader and the sandboxed kernel, and the handle tests receive.

The parent writes a request (snippet, inputs, stand-in source, seed) with ``torch.save`` into scratch; the
kernel loads it with ``torch.load(weights_only=True)``, runs ``runtime.run_snippet`` (runtime.py's text is
sent into the kernel once, by ``bootstrap_code``, and executed into a private module object: nothing is
imported from the repository) and writes ``{"ok": ..., "result": ...}`` with ``torch.save``. The parent
opens the reply without following links, checks it is a regular file under the size cap, and decodes it
with limits (``reply.decode_reply``). Everything in the kernel is the student's, this code included: a
reply is data to check, never a verdict.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from assignments.grading.sandbox.reply import decode_reply
from assignments.grading.sandbox.scratch import write_new_file
from assignments.grading.testkit import runtime
from assignments.grading.testkit.errors import SandboxError, StudentCodeError
from assignments.grading.testkit.handle import RESULT_REFUSED, StudentHandle
from assignments.grading.testkit.kernel_text import untrusted_text

RUNTIME_MODULE = "_course_grader_runtime"
MB = 1024 * 1024

# Sent into the kernel once per start. Runs there, next to student code; defines a private module whose
# ``serve`` answers one request file with one reply file.
_BOOTSTRAP = r"""
def _install(runtime_source, user_ns, module_name):
    import contextlib, io, os, sys, types, warnings
    import torch

    runtime = types.ModuleType(module_name)
    exec(compile(runtime_source, "<grader runtime>", "exec"), runtime.__dict__)

    class Sink(io.TextIOBase):
        def writable(self):
            return True

        def write(self, text):
            return len(text)

    def serve(in_path, out_path, max_bytes):
        try:
            request = torch.load(in_path, weights_only=True)
            with warnings.catch_warnings(), contextlib.redirect_stdout(Sink()), \
                    contextlib.redirect_stderr(Sink()):
                warnings.simplefilter("ignore")
                value = runtime.run_snippet(user_ns, request["code"], request["inputs"],
                                            request["stand_in_source"], tuple(request["stand_ins"]),
                                            request["seed"])
            reply = {"ok": True, "result": value}
        except runtime.ResultTypeError as error:
            reply = {"ok": False, "kind": "result", "error": str(error)}
        except KeyboardInterrupt:
            reply = {"ok": False, "kind": "interrupted", "error": "interrupted"}
        except BaseException as error:
            reply = {"ok": False, "kind": "code", "error": runtime.describe_error(error)}
        try:
            data = runtime.to_bytes(reply)
        except BaseException as error:
            data = runtime.to_bytes({"ok": False, "kind": "result", "error": runtime.describe_error(error)})
        if len(data) > max_bytes:
            data = runtime.to_bytes({"ok": False, "kind": "too-big",
                                     "error": f"the result is {len(data) / 1e6:.0f} MB"})
        with open(out_path + ".part", "wb") as handle:
            handle.write(data)
        os.replace(out_path + ".part", out_path)

    runtime.serve = serve
    sys.modules[module_name] = runtime

_install(*__args__)
"""


def bootstrap_code() -> str:
    """The cell that installs the runtime and its ``serve`` in a freshly started kernel."""
    return (
        f"exec(compile({_BOOTSTRAP!r}, '<grader bootstrap>', 'exec'), "
        f"{{'__name__': '_course_grader_boot', '__args__': ({Path(runtime.__file__).read_text()!r}, "
        f"get_ipython().user_ns, {RUNTIME_MODULE!r})}})"
    )


def write_request(
    path: Path, code: str, inputs: dict, stand_in_source: str, stand_ins: tuple, seed: int, owner=None
) -> None:
    """A new request file (O_EXCL | O_NOFOLLOW: never through what the kernel put at that name), 0600 and
    owned by the kernel's uid (``owner``): it holds stand-ins, which no other uid may read."""
    request = {
        "code": code,
        "inputs": inputs,
        "stand_in_source": stand_in_source,
        "stand_ins": list(stand_ins),
        "seed": int(seed),
    }
    write_new_file(path, runtime.to_bytes(request), owner, 0o600)


def serve_code(request_path: Path, reply_path: Path, max_bytes: int) -> str:
    """The cell that makes the kernel answer one request."""
    return (
        f"__import__('sys').modules[{RUNTIME_MODULE!r}].serve({str(request_path)!r}, {str(reply_path)!r}, {max_bytes})"
    )


def read_reply(path: Path, limits) -> dict:
    """Open without following links, regular files only, size-capped, decoded with ``limits``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        raise SandboxError(f"the kernel wrote no result ({error.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SandboxError("the result is not a regular file")
        if info.st_size > limits.max_result_bytes:
            raise SandboxError(
                f"the result is {info.st_size / 1e6:.0f} MB, more than the {limits.max_result_bytes // MB} MB allowed"
            )
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(limits.max_result_bytes + 1)
    finally:
        os.close(fd)
        try:
            path.unlink()
        except OSError:
            pass
    return decode_reply(data, limits)


def reply_value(reply: dict, limits):
    """The result a decoded reply carries, or the exception a test should see instead."""
    if reply.get("ok") is True and "result" in reply:
        return reply["result"]
    kind = reply.get("kind")
    if kind == "code":  # "Type: message" as the kernel's helper wrote it: student-chosen text
        name, _, message = str(reply.get("error", "")).partition(": ")
        raise StudentCodeError(untrusted_text(name, message))
    if kind == "result":
        raise StudentCodeError(RESULT_REFUSED)
    if kind == "too-big":
        raise SandboxError(f"the result is more than the {limits.max_result_bytes // MB} MB allowed")
    raise SandboxError("the kernel returned an unusable reply")


class KernelHandle(StudentHandle):
    """The ``student`` fixture of the standalone door: every call crosses into the sandbox."""

    def __init__(self, sandbox, assignment, seed: int = 0, stand_in_source: str | None = None):
        super().__init__(assignment, seed)
        if stand_in_source is not None:
            self._stand_in_source = stand_in_source
        self.sandbox = sandbox

    def _run(self, code, inputs, stand_ins, stand_in_source, timeout):
        return self.sandbox.call(code, inputs, stand_in_source, stand_ins, self.seed, timeout)
