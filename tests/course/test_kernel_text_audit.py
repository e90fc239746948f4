"""Kernel text is budgeted per submission on the real course (issue #43, item 1): every hidden test of the
three assignments, through the real GradingPlugin, against a handle whose every reply is hostile
(raised, bare, echoed with code-like names and keys: tests/fixtures/hostile_replies.py). The payload is
the assignment's own stand-ins, oracles, checks and hidden tests.

For each assignment and style: the kernel-chosen characters of all messages (what changes when only the
payload's characters change) stay within the submission's budget, no message shows more than
KERNEL_RUN_CHARS of them in a row, and no message holds a 20-character run of stand_ins.py, oracles.py or
a hidden test module that the grader's own words there do not.
"""

from __future__ import annotations

import pytest

from assignments.course import default
from assignments.grading.testkit.kernel_text import KERNEL_RUN_CHARS, SUBMISSION_KERNEL_TEXT_CHARS
from tests.fixtures import hostile_replies

pytestmark = pytest.mark.course

ASSIGNMENTS = ("transformers", "rnn_attention", "transfer_lm")


@pytest.mark.parametrize("style", hostile_replies.STYLES)
@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_hostile_replies_reach_no_message_beyond_the_budget(name, style):
    assignment = default().assignment(name)
    files = sorted(assignment.suite_dir.glob("*.py"))
    found = hostile_replies.audit(assignment, style, [path.read_text(encoding="utf-8") for path in files])
    assert len(found.messages) > 10 and any(message for _, message in found.messages)
    assert found.total <= SUBMISSION_KERNEL_TEXT_CHARS, found.kernel
    over = [(test, longest) for test, _, longest in found.kernel if longest > KERNEL_RUN_CHARS]
    assert not over, over
    for path in files:
        carried = found.carried(path.read_text(encoding="utf-8"))
        assert not carried, f"{path.name}: {carried[:3]}"
