"""The ways a submission is graded, each returning a ``results.model.SubmissionResult``: the standalone
door (one submission, sandboxed), the batch (many, in parallel grader processes), in-process grading (the
selftest's mutants), and ``nbgrader/`` (real ``nbgrader autograde`` with this course's preprocessors,
repair, the reaper, and the cross-check against the standalone door)."""

from assignments.grading.public import public_names

PUBLIC = {
    "grade_submission": "standalone",
    "grade_batch": "batch",
    **dict.fromkeys(["grade_notebook", "execute_cells", "grade_namespace"], "inprocess"),
}
__all__ = sorted(PUBLIC)
__getattr__ = public_names(__name__, PUBLIC)
