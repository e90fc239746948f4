"""Text the student's kernel chose (exception messages, type names, anything it reports), made safe to
show: first line, printable ASCII, a few dozen characters at most."""

from __future__ import annotations

import re

# Text that student code can choose (exception messages, type names, anything the kernel reports) may
# reach feedback and exports. Once a stand-in has been sent into a kernel, such text could carry the
# answer key out, so it is cut to KERNEL_TEXT_CHARS in all: too short to carry a useful piece of a
# stand-in or hidden test, long enough for "RuntimeError: mat1 and mat2 shapes...".
KERNEL_TEXT_CHARS = 40
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,29}")


def untrusted_text(kind: object, message: object = "") -> str:
    """``Type: first line`` of text student code chose, printable ASCII only, at most KERNEL_TEXT_CHARS."""
    kind = str(kind)
    kind = kind if _NAME.fullmatch(kind) else "Exception"
    lines = str(message).strip().splitlines()
    first = "".join(c if " " <= c <= "~" else "?" for c in (lines[0] if lines else ""))
    if not first:
        return kind
    room = KERNEL_TEXT_CHARS - len(kind) - 2
    if len(first) > room:
        first = first[: max(0, room - 3)] + "..."
    return f"{kind}: {first}"


def describe_exception(error: BaseException) -> str:
    """An exception as untrusted text: it may have been raised by student code, or carry its values."""
    # Imported here: runtime imports torch (it runs inside kernels too), and the readers of submitted files
    # (intake, submission.load) describe their errors without needing it.
    from assignments.grading.testkit import runtime

    name, _, message = runtime.describe_error(error).partition(": ")
    return untrusted_text(name, message)
