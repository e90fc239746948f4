"""Text the student's kernel chose (exception messages, names, keys, reprs of what it returned), made safe
to show, and the one budget such text draws from for a whole submission.

Once a stand-in has been sent into a kernel, anything the kernel chooses to say could carry the answer key
out through feedback, Gradescope's results.json or PrairieLearn's results. So kernel text is cut twice:

- per message: the first line, printable ASCII, at most ``KERNEL_RUN_CHARS`` characters of it (too short
  for a line of a stand-in or a hidden test), shown after a type name from Python's own vocabulary;
- per submission: every kernel-chosen character any of its messages shows is drawn from one
  ``KernelTextBudget`` of ``SUBMISSION_KERNEL_TEXT_CHARS``. Once it is spent, messages show only the type
  name (or "Exception" / "object") and say in the grader's words what was wrong.

A grading activates a fresh budget for each submission (``suite.run_suite`` does; the standalone door for
the whole submission, cells included; the nbgrader kernel keeps one for its process, which grades one
notebook). A test that passes gives back what it drew (``GradingPlugin``): its messages are never shown.
Outside any grading (reading an uploaded file, the similarity report) only the per-message cut applies:
no stand-in has been sent anywhere then.
"""

from __future__ import annotations

import builtins
import contextlib
import re

# The most one message built here shows in all: "Type: prefix...".
KERNEL_TEXT_CHARS = 40
# The most consecutive characters the kernel chose that one message shows: enough for "mat1 and mat2 sh",
# too few for a line of a stand-in (the audits look for 20-character runs of grader source).
KERNEL_RUN_CHARS = 16
# Kernel-chosen characters all of one submission's messages may show together (issue #43: 17 failing
# tests carried ~600 characters when the cut was per message only). 15 messages at the per-message cut.
SUBMISSION_KERNEL_TEXT_CHARS = 240
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,29}")
# Type names outside ``builtins`` that are Python's or torch's, not the student's: shown free too.
_ALSO_NAMED = {"NoneType", "Tensor", "Parameter", "OutOfMemoryError"}


class KernelTextBudget:
    """How many kernel-chosen characters one submission's messages may still show."""

    def __init__(self, chars: int = SUBMISSION_KERNEL_TEXT_CHARS):
        self.chars = chars
        self.left = chars

    @property
    def spent(self) -> int:
        return self.chars - self.left

    def take(self, text: str) -> str:
        """The part of ``text`` that still fits (spent now); '' once the budget is gone."""
        shown = text[: max(0, self.left)]
        self.left -= len(shown)
        return shown

    def give_back(self, left: int) -> None:
        """Return to ``left`` characters: what a test drew for messages nobody reads (it passed; an
        ``expect`` builds its message before it knows whether it fails)."""
        self.left = max(self.left, min(left, self.chars))


_active: KernelTextBudget | None = None


@contextlib.contextmanager
def budgeted(budget: KernelTextBudget):
    """Charge all kernel text made safe inside the block to ``budget`` (one submission's)."""
    global _active
    previous, _active = _active, budget
    try:
        yield budget
    finally:
        _active = previous


def active_budget() -> KernelTextBudget | None:
    return _active


def vocabulary(kind: object, otherwise: str) -> str:
    """``kind`` when it names one of Python's own types (ValueError, dict, ...): grader vocabulary, shown
    free; else ``otherwise``, since a class the student defined has a name the student chose."""
    kind = str(kind)
    named = kind in _ALSO_NAMED or isinstance(getattr(builtins, kind, None), type)
    return kind if _NAME.fullmatch(kind) and named else otherwise


def printable_prefix(text: object) -> str:
    """At most KERNEL_RUN_CHARS of the first line of ``text``, printable ASCII, drawn from the active
    budget ('' when nothing is left), with "..." when cut."""
    lines = str(text).strip().splitlines()
    first = "".join(c if " " <= c <= "~" else "?" for c in (lines[0] if lines else ""))
    cut = first[:KERNEL_RUN_CHARS]
    if _active is not None:
        cut = _active.take(cut)
    return cut + "..." if cut and len(cut) < len(first) else cut


def untrusted_text(kind: object, message: object = "") -> str:
    """``Type: prefix`` of an exception student code raised (or any text it chose): the type when Python
    names it, else "Exception"; the prefix from ``printable_prefix``. At most KERNEL_TEXT_CHARS."""
    kind = vocabulary(kind, "Exception")
    prefix = printable_prefix(message)
    return f"{kind}: {prefix}" if prefix else kind


def describe_exception(error: BaseException) -> str:
    """An exception as untrusted text: it may have been raised by student code, or carry its values."""
    # Imported here: runtime imports torch (it runs inside kernels too), and the readers of submitted files
    # (intake, submission.load) describe their errors without needing it.
    from assignments.grading.testkit import runtime

    name, _, message = runtime.describe_error(error).partition(": ")
    return untrusted_text(name, message)
