"""What a hidden suite imports: the question marker, checks whose messages are safe to show, the handle
that reaches student code in either door, stand-ins, the exceptions, and the suite runner. It imports
no sandbox and no door, so a suite means the same thing behind every door."""

from assignments.grading.public import public_names

PUBLIC = {
    **dict.fromkeys(
        [
            "question",
            "behaviour",
            "expect",
            "expect_tensor",
            "expect_shape",
            "expect_close",
            "expect_between",
            "kernel_value",
            "kernel_shape",
        ],
        "checks",
    ),
    **dict.fromkeys(
        [
            "GradingFailure",
            "StudentCodeError",
            "StudentTimeout",
            "SandboxError",
            "StandInRefused",
            "ReplyRefused",
            "TestBudgetExceeded",
        ],
        "errors",
    ),
    **dict.fromkeys(["StudentHandle", "LocalHandle", "answered_by", "DEFAULT_TIMEOUT"], "handle"),
    **dict.fromkeys(["stand_in_source", "extract_definitions", "defined_names"], "stand_ins"),
    **dict.fromkeys(
        [
            "untrusted_text",
            "describe_exception",
            "vocabulary",
            "KERNEL_TEXT_CHARS",
            "KERNEL_RUN_CHARS",
            "SUBMISSION_KERNEL_TEXT_CHARS",
            "KernelTextBudget",
            "budgeted",
        ],
        "kernel_text",
    ),
    **dict.fromkeys(["run_suite", "single_threaded_torch", "SuiteProblem"], "suite"),
}
__all__ = sorted(PUBLIC)
__getattr__ = public_names(__name__, PUBLIC)
