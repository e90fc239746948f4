"""The nbgrader door: what a source notebook's hidden-test region calls.

In the source notebook each autograded test cell ends with::

    ### BEGIN HIDDEN TESTS
    from assignments.grading.door import hidden_tests
    hidden_tests("transformers", "attention_tests", globals())
    ### END HIDDEN TESTS

Under ``nbgrader autograde`` or ``nbgrader validate`` this runs that question's hidden pytest tests
against the kernel's own namespace and leaves the earned points as the cell's value, which nbgrader reads
as partial credit. The release never contains this region. This door runs inside the student's kernel,
so it trusts the student's process; the standalone grader is the door that does not.

Besides returning them, the call publishes its points as display data with a private MIME type
(``POINTS_MIME``). The autograde preprocessor ``HonestPoints`` scores the cell from that output only, so
a float formatter that prints "checked" or ``ast_node_interactivity = "none"`` (which would make
nbgrader read a non-numeric or missing value as full credit) cannot raise the score.

The region names its assignment, and a name needs a course to mean something: by default this
repository's (``course.default``). The nbgrader door grades an assignment of any course folder (a test's
toy course, too): it names that folder in the kernel's environment (``COURSE_VARIABLE``, set by
``door.nbgrader``), and the region resolves its name there. Only this kernel-side region and nbgrader's
own ``KeepEvidence`` step (in the nbgrader process the door started, not the kernel) read the variable,
so it adds nothing a student could use: under nbgrader the student's code already runs in this
process (see above), and the standalone door never runs a hidden-test region; it grades the
``Assignment`` its caller passes, whatever a kernel's environment says.
"""

from __future__ import annotations

import os
from pathlib import Path

from assignments.course import Assignment, Course, default

COURSE_VARIABLE = "COURSE_NBGRADER_COURSE"  # the course folder whose assignment the nbgrader door grades


def kernel_assignment(name: str) -> Assignment:
    """The assignment ``name`` of the course the nbgrader door named (``COURSE_VARIABLE``), else of this
    repository's course."""
    folder = os.environ.get(COURSE_VARIABLE)
    return (Course(Path(folder)) if folder else default()).assignment(name)


# The kernel-text budget of the notebook this kernel runs (nbgrader gives each notebook a kernel of its
# own): every question's hidden-test region draws from it, so the submission, not each cell, has one.
_KERNEL_TEXT = None


def hidden_tests(assignment: str, grade_id: str, namespace: dict, seed: int = 0) -> float:
    # Here, not at the top: nbgrader's own process imports this module for ``kernel_assignment`` alone
    # (``KeepEvidence``), and the test kit imports torch.
    from assignments.grading.testkit.handle import LocalHandle
    from assignments.grading.testkit.kernel_text import KernelTextBudget
    from assignments.grading.testkit.suite import run_suite

    global _KERNEL_TEXT
    _KERNEL_TEXT = _KERNEL_TEXT or KernelTextBudget()
    assignment = kernel_assignment(assignment)
    maximum = assignment.max_points(grade_id)
    results, problems = run_suite(
        assignment,
        LocalHandle(namespace, assignment, seed),
        assignment.autograded_order,
        [grade_id],
        kernel_text=_KERNEL_TEXT,
    )
    for problem in problems:
        print(f"[grader problem] {problem}")
    for test in results:
        mark = "ok  " if test.outcome == "passed" else "FAIL"
        line = f"{mark} {test.name} ({test.points:g}/{test.max_points:g})"
        print(line + (f": {test.message}" if test.message else ""))
    earned = min(sum(test.points for test in results), maximum)
    print(f"{grade_id}: {earned:g} / {maximum:g} points")
    earned = float(round(earned, 4))
    publish_points(grade_id, earned, float(maximum))
    return earned


def publish_points(grade_id: str, points: float, maximum: float) -> None:
    """Send the points as display data nbgrader's preprocessor reads; raw, so no formatter touches it."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return
    if get_ipython() is not None:
        from assignments.grading.doors.nbgrader.preprocessors import (
            POINTS_MIME,
        )  # only under Jupyter, where nbgrader reads it

        display({POINTS_MIME: {"grade_id": grade_id, "points": points, "max_points": maximum}}, raw=True)
