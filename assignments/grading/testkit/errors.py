"""Every exception the grading engine raises across its parts, in one place (nbclient's convention).

A hidden test sees the first four from the handle; the suite turns each into a test outcome and a message
(``suite.failure_message``). None of them ever carries text the student's kernel chose beyond what
``kernel_text.untrusted_text`` lets through.
"""

from __future__ import annotations


class StudentCodeError(Exception):
    """Student code raised while a hidden test was calling it."""


class StudentTimeout(Exception):
    """Student code did not finish within the time allowed for one call."""


class SandboxError(Exception):
    """The sandboxed kernel died, ran out of memory, or returned something unreadable."""


class SandboxRefused(Exception):
    """This machine cannot run students' code correctly in the sandbox (``sandbox/preflight.py``), so
    nothing is graded; the message says why and what to change."""


class StandInRefused(Exception):
    """A test asked for a stand-in before every test of the question it answers had finished."""


class ReplyRefused(SandboxError):
    """The kernel's reply broke a limit: the student's doing (a finding), never the grader's."""


class TestBudgetExceeded(Exception):
    """Raised inside a hidden test by the per-test CPU timer."""

    __test__ = False


class GradingFailure(AssertionError):
    """A check failed; the message is shown to the student."""
