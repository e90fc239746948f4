"""Decoding a sandboxed kernel's reply with limits, before any torch operation touches it.

A reply file is a ``torch.save`` zip written by code the student controls. ``torch.load(weights_only=True)``
never runs the student's objects, but it trusts the archive's sizes and the tensors' metadata: a small
file whose deflated records expand to gigabytes, or a tensor with stride 0 that claims 10^18 elements
over a one-element storage, is accepted and then makes ``torch.equal`` loop for ever or the grader run
out of memory. So, in order:

1. the zip's central directory: few enough entries, total uncompressed size within the result cap;
2. ``torch.load(weights_only=True)``;
3. every value: exact plain types, bounded nesting and count, strings (dict keys too) of bounded length,
   and each tensor strided, with non-negative strides, a logical size within the cap, and a storage large
   enough for every element it addresses.

Anything else raises ``SandboxError`` (a finding and zero for that test, never a grader crash).
"""

from __future__ import annotations

import io
import warnings
import zipfile

import torch

from assignments.grading.sandbox.limits import Limits
from assignments.grading.testkit import runtime
from assignments.grading.testkit.errors import ReplyRefused

MAX_ZIP_ENTRIES = 100_000


def check_archive(data: bytes, max_bytes: int) -> None:
    """Refuse an archive whose entries would expand beyond ``max_bytes`` (read from the directory only)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        raise ReplyRefused("the result is not a readable archive") from None
    if len(entries) > MAX_ZIP_ENTRIES:
        raise ReplyRefused(f"the result holds {len(entries)} records, more than {MAX_ZIP_ENTRIES}")
    total = sum(max(0, entry.file_size) for entry in entries)
    if total > max_bytes:
        raise ReplyRefused(
            f"the result expands to {total / 1e6:.0f} MB, more than the {max_bytes / 1e6:.0f} MB allowed"
        )


def check_tensor(tensor: torch.Tensor, max_bytes: int) -> torch.Tensor:
    """A plain strided tensor whose every element lies inside its storage; otherwise SandboxError."""
    if (
        type(tensor) is not torch.Tensor
        or tensor.layout != torch.strided
        or tensor.is_quantized
        or tensor.device.type != "cpu"
    ):
        raise ReplyRefused("the result holds a tensor of an unsupported kind")
    shape, strides = tuple(tensor.shape), tuple(tensor.stride())
    if any(n < 0 for n in shape) or any(s < 0 for s in strides) or tensor.storage_offset() < 0:
        raise ReplyRefused("the result holds a tensor with a negative size or stride")
    count = 1
    for n in shape:  # python ints: no overflow, and no torch op on the tensor yet
        count *= n
    item = tensor.element_size()
    if count * item > max_bytes:
        raise ReplyRefused(f"the result holds a tensor of {count} elements, more than the result cap allows")
    if count:
        last = tensor.storage_offset() + sum((n - 1) * s for n, s in zip(shape, strides))
        if (last + 1) * item > tensor.untyped_storage().nbytes():
            raise ReplyRefused("the result holds a tensor that reaches outside its storage")
    return tensor.clone()  # our own compact copy: no shared or overlapping storage survives


def check_string(text: str, max_chars: int) -> str:
    """``text`` if it is at most ``max_chars`` long. A longer one is refused, not cut: a cut string would
    be a different answer, and the only long strings a kernel has to give are texts it was sent."""
    if len(text) > max_chars:
        raise ReplyRefused(f"the result holds a string of {len(text)} characters, more than {max_chars}")
    return text


def check_value(value, max_bytes: int, max_items: int, max_depth: int, max_chars: int = Limits.max_reply_string_chars):
    """Rebuild ``value`` from exact plain types, checking it on the way; SandboxError if it is not plain."""
    budget = [max_items]

    def walk(item, depth):
        budget[0] -= 1
        if budget[0] < 0:
            raise ReplyRefused(f"the result holds more than {max_items} values")
        if depth > max_depth:
            raise ReplyRefused(f"the result is nested more than {max_depth} levels deep")
        if type(item) is str:
            return check_string(item, max_chars)
        if item is None or type(item) in (bool, int, float):
            return item
        if isinstance(item, torch.Tensor):
            return check_tensor(item, max_bytes)
        if type(item) in (list, tuple):
            rebuilt = [walk(v, depth + 1) for v in item]
            return tuple(rebuilt) if type(item) is tuple else rebuilt
        if isinstance(item, dict):
            if not all(type(k) is str for k in item):
                raise ReplyRefused("the result has a dictionary key that is not a string")
            return {check_string(k, max_chars): walk(v, depth + 1) for k, v in item.items()}
        raise ReplyRefused(f"the result holds a {type(item).__name__}, which the grader does not accept")

    return walk(value, 0)


def decode_reply(data: bytes, limits) -> dict:
    """The kernel's reply dict, checked against ``limits`` (a limits.Limits)."""
    check_archive(data, limits.max_result_bytes)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reply = runtime.from_bytes(data)
    except Exception:  # noqa: BLE001 - anything unreadable is the sandbox's failure
        raise ReplyRefused("the result could not be read safely") from None
    if not isinstance(reply, dict):
        raise ReplyRefused("the result has the wrong structure")
    if type(reply.get("error")) is str:
        # The helper's "Type: message" for an exception in student code: feedback shows only its start
        # (handle.untrusted_text), so it is cut, not refused; a long message is no fault of the student.
        reply["error"] = reply["error"][: limits.max_reply_string_chars]
    return check_value(
        reply, limits.max_result_bytes, limits.max_reply_items, limits.max_reply_depth, limits.max_reply_string_chars
    )


__all__ = ["ReplyRefused", "decode_reply", "check_archive", "check_string", "check_tensor", "check_value"]
