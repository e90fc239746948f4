"""Runs one hidden-test snippet inside the student's namespace.

This module is the only grading code that runs next to student code. The nbgrader door imports it in the
student's kernel; the standalone door sends this file's text into the sandboxed kernel and executes it
there. So it must stay self-contained: standard library and torch only, no imports from this package.

A snippet is a few lines of Python written by a hidden test. It sees the student's globals plus the
inputs the test sent, and must assign a variable ``result``. What comes back is reduced to plain data
(tensors, numbers, strings, None, and lists/tuples/dicts of them) so the grader can read it with
``torch.load(weights_only=True)`` and never unpickles an object the student made.
"""

import io
import random

import torch

_MISSING = object()
_PLAIN = (bool, int, float, str)


class ResultTypeError(TypeError):
    """The snippet's result holds something other than plain data."""


NO_RESULT = "the hidden test snippet did not set `result`"  # the test's own mistake, in the grader's words


def seed_everything(seed):
    """Seed python, numpy and torch the same way in both doors so scores agree."""
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy
    except ImportError:  # numpy is optional for the runtime
        return
    numpy.random.seed(seed % 2**32)


def make_plain(value, where="result"):
    """Copy ``value`` into exact built-in types and plain CPU tensors, or raise ResultTypeError.

    Subclasses are converted, not kept: a student's ``int`` subclass with a forged ``__eq__`` becomes a
    real int here, before the grader compares anything.
    """
    if value is None:
        return None
    if isinstance(value, torch.Tensor):
        tensor = value.detach().to("cpu").clone().contiguous()
        return tensor.as_subclass(torch.Tensor) if type(tensor) is not torch.Tensor else tensor
    if isinstance(value, bool):
        return bool(value)
    for kind in (int, float, str):
        if isinstance(value, kind):
            return kind(value)
    if hasattr(value, "item") and hasattr(value, "dtype") and getattr(value, "shape", None) == ():
        return make_plain(value.item(), where)  # numpy scalars
    if isinstance(value, (list, tuple)):
        items = [make_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        plain = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ResultTypeError(f"{where} has a key of type {type(key).__name__}; only str keys")
            plain[str(key)] = make_plain(item, f"{where}[{key!r}]")
        return plain
    raise ResultTypeError(f"{where} is a {type(value).__name__}, which the grader cannot receive")


def describe_error(error):
    """ "Type: first line of the message" (at most 300 characters of it), for any exception, even one
    whose ``__str__`` raises. Runs in the kernel too, so the text is the student's: the grader passes it
    through ``handle.untrusted_text`` before anyone reads it."""
    try:
        lines = str(error).strip().splitlines()
    except BaseException:
        lines = []
    first = lines[0] if lines else ""
    first = first[:300] + "..." if len(first) > 300 else first
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


def to_bytes(value):
    buffer = io.BytesIO()
    torch.save(value, buffer)
    return buffer.getvalue()


def from_bytes(data):
    # Onto the CPU whatever device the archive names: a reply is bytes the student's code wrote, and on a
    # GPU host a storage tagged "cuda:0" would otherwise be restored into the grader's GPU memory.
    return torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")


def run_snippet(namespace, code, inputs, stand_in_source="", stand_in_names=(), seed=0):
    """Execute ``code`` with the student's ``namespace`` visible and return its plain ``result``.

    ``stand_in_names`` are replaced in ``namespace`` by correct versions from ``stand_in_source`` for
    the duration of the call, so a test of one question does not fail because an earlier question is
    wrong. The student's own definitions are put back afterwards, whatever happens.
    """
    saved = {}
    if stand_in_names:
        reference = {"__name__": "stand_ins"}
        exec(compile(stand_in_source, "<stand-ins>", "exec"), reference)
        for name in stand_in_names:
            saved[name] = namespace.get(name, _MISSING)
            namespace[name] = reference[name]
    try:
        scope = dict(namespace)
        scope.update(inputs)
        seed_everything(seed)
        # Every test starts where a fresh notebook does: gradients on. A call that left them off (a student's
        # torch.set_grad_enabled(False) in an earlier question) would otherwise cost points on every later one.
        torch.set_grad_enabled(True)
        exec(compile(code, "<hidden test>", "exec"), scope)
        if "result" not in scope:
            raise ResultTypeError(NO_RESULT)
        return make_plain(scope["result"])
    finally:
        for name, value in saved.items():
            if value is _MISSING:
                namespace.pop(name, None)
            else:
                namespace[name] = value
