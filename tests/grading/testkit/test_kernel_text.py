"""Kernel text is budgeted per submission (issue #43): the budget itself, and the toy course's whole hidden
suite run against a handle whose every reply is hostile (tests/fixtures/hostile_replies.py)."""

import pytest
import torch

from assignments.grading.testkit import suite
from assignments.grading.testkit.checks import expect_shape, kernel_value
from assignments.grading.testkit.errors import GradingFailure, StudentCodeError
from assignments.grading.testkit.handle import LocalHandle
from assignments.grading.testkit.kernel_text import (
    KERNEL_RUN_CHARS,
    KERNEL_TEXT_CHARS,
    SUBMISSION_KERNEL_TEXT_CHARS,
    KernelTextBudget,
    budgeted,
    untrusted_text,
)
from tests.fixtures import hostile_replies, toy

SECRET = "def add(a, b): return a + b  # the answer key, one line; " * 20


def test_a_budget_hands_out_what_is_left_then_nothing():
    budget = KernelTextBudget(10)
    assert budget.take("abcdef") == "abcdef" and budget.take("ghijkl") == "ghij" and budget.take("x") == ""
    assert budget.spent == 10 and budget.left == 0


def test_many_failing_messages_show_the_budget_in_all_then_only_the_grader_s_words():
    budget = KernelTextBudget()
    with budgeted(budget):
        shown = [untrusted_text("ValueError", SECRET[i:]) for i in range(60)]
        shown += [kernel_value(SECRET[i:]) for i in range(60)]
    kernel = [text.split(": ", 1)[1].removesuffix("...") for text in shown if ": " in text]
    assert sum(map(len, kernel)) == budget.spent == SUBMISSION_KERNEL_TEXT_CHARS
    assert all(len(text) <= KERNEL_RUN_CHARS for text in kernel)
    assert shown[-1] == "str" and "ValueError" in shown, "once spent, only the type Python names is shown"
    assert all(len(text) <= KERNEL_TEXT_CHARS for text in shown)


def test_outside_a_grading_only_the_per_message_cut_applies():
    first = untrusted_text("OSError", SECRET)
    assert first == untrusted_text("OSError", SECRET) == f"OSError: {SECRET[:KERNEL_RUN_CHARS]}..."


def test_a_suite_run_has_one_budget_for_all_its_messages(tmp_path):
    """Every test of the toy suite fails with a long exception message: together they show no more than
    the budget, and a second submission graded in the same process gets a fresh one."""
    course = toy.build(tmp_path)

    class Raising:
        def __getattr__(self, name):
            raise AttributeError(name)

    for _ in range(2):
        budget = KernelTextBudget(24)
        handle = hostile_replies.HostileHandle(course.assignment, "raise", [SECRET])
        results, _ = suite.run_suite(course.assignment, handle, course.assignment.autograded_order, kernel_text=budget)
        messages = [r.message for r in results]
        assert len(messages) == 4 and budget.spent == 24, messages
        shown = [m.split("Exception: ", 1)[1].removesuffix("...") for m in messages if "Exception: " in m]
        assert sum(map(len, shown)) == 24, messages


@pytest.mark.parametrize("style", hostile_replies.STYLES)
def test_no_toy_message_carries_more_kernel_text_than_its_share(tmp_path, style):
    """The toy suite's every failure path with hostile replies: the kernel-chosen characters of all its
    messages stay within the submission's budget, none shows more than KERNEL_RUN_CHARS of them in a row,
    and none holds a 20-character run of the stand-ins or the hidden tests."""
    course = toy.build(tmp_path)
    found = hostile_replies.audit(course.assignment, style, [toy.STAND_INS, toy.HIDDEN_TESTS])
    assert any(message for _, message in found.messages), found.messages
    assert found.total <= found.spent <= SUBMISSION_KERNEL_TEXT_CHARS, found.kernel
    assert all(longest <= KERNEL_RUN_CHARS for _, _, longest in found.kernel), found.kernel
    assert not found.carried(toy.STAND_INS) and not found.carried(toy.HIDDEN_TESTS)


def test_the_toy_audit_would_see_a_message_that_quotes_the_kernel(tmp_path):
    """The audit's own check: a hidden test that prints a reply raw is caught."""
    tests = toy.HIDDEN_TESTS.replace("{kernel_value(out)}", "{out!r}")
    assert tests != toy.HIDDEN_TESTS
    course = toy.build(tmp_path, tests=tests)
    found = hostile_replies.audit(course.assignment, "bare", [toy.STAND_INS, toy.HIDDEN_TESTS])
    assert max(longest for _, _, longest in found.kernel) > KERNEL_RUN_CHARS


def test_a_student_code_error_is_not_shown_beyond_the_budget():
    with budgeted(KernelTextBudget(0)):
        error = StudentCodeError(untrusted_text("ZeroDivisionError", "division by zero"))
    assert str(error) == "ZeroDivisionError"


def test_a_shape_the_kernel_chose_is_kernel_text():
    """A tensor with a zero-size axis may have any sizes on the others: its shape is the kernel's text."""
    empty = torch.empty(104, 101, 102, 0, 2**40)
    with budgeted(KernelTextBudget(8)):
        for _ in range(2):
            with pytest.raises(GradingFailure) as caught:
                expect_shape(empty, (3, 4), "x")
            assert str(caught.value).startswith("x should have shape (3, 4); got ")
    assert str(caught.value) == "x should have shape (3, 4); got another shape"
    with pytest.raises(GradingFailure) as caught:
        expect_shape(empty, (3, 4), "x")
    assert str(caught.value) == f"x should have shape (3, 4); got {str(tuple(empty.shape))[:KERNEL_RUN_CHARS]}..."


def test_the_nbgrader_kernel_s_hidden_test_cells_share_one_budget(monkeypatch, toy_assignment, capsys):
    """Under nbgrader each question's hidden-test cell calls ``hidden_tests`` in the notebook's one kernel:
    the cells draw from one budget, so a notebook cannot get a fresh one per question."""
    from assignments.grading.doors.nbgrader import hidden_region

    monkeypatch.setenv(hidden_region.COURSE_VARIABLE, str(toy_assignment.folder))
    monkeypatch.setattr(hidden_region, "_KERNEL_TEXT", KernelTextBudget(20))
    namespace = {"add": eval("lambda a, b: 1 / 0")}
    first, second = toy_assignment.assignment.autograded_order
    hidden_region.hidden_tests("toy", first, namespace)
    assert hidden_region._KERNEL_TEXT.spent == 20 and "division by zero" in capsys.readouterr().out
    hidden_region.hidden_tests("toy", second, namespace)
    shown = capsys.readouterr().out
    assert "your code raised NameError\n" in shown and "name 'scale'" not in shown, shown


def test_a_test_that_passes_gives_back_what_its_unread_messages_drew(tmp_path):
    """``expect`` builds its message before it knows whether it fails: a passing test's kernel_value calls
    must not spend the budget a later failure needs."""
    course = toy.build(tmp_path)  # test_add_numbers: expect(out == 7, f"...got {kernel_value(out)}")
    namespace = {"torch": torch, "add": lambda a, b: a + b, "scale": lambda x, k: "s" * 40}
    budget = KernelTextBudget()
    results, _ = suite.run_suite(
        course.assignment,
        LocalHandle(namespace, course.assignment),
        course.assignment.autograded_order,
        kernel_text=budget,
    )
    failed = [r for r in results if r.outcome != "passed"]
    assert [r.name for r in failed] == ["test_scale_tensor", "test_scale_zero"], results
    assert budget.spent == 0, [r.message for r in failed]
