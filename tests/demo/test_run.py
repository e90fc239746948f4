"""``make demo`` grades two assignments at once, each printing into its own log, and shows each log whole
once its assignment is done (``assignments/demo/run.py``): the log must read as a terminal would have
shown it, so a progress bar that redrew itself with carriage returns leaves only its last state."""

from assignments.demo.run import final_lines


def test_a_redrawn_progress_bar_leaves_only_its_last_state():
    log = "repaired for nbgrader\ngrading toy:   0%| 0/2\rgrading toy:  50%| 1/2\rgrading toy: 100%| 2/2\r\ndone\n"
    assert final_lines(log) == "repaired for nbgrader\ngrading toy: 100%| 2/2\ndone", (
        "each line of the log should keep only what follows its last carriage return"
    )


def test_lines_without_carriage_returns_are_kept_as_they_are():
    log = "student  total\n1001     0/27\n\nboth doors agree on every question\n"
    assert final_lines(log) == log.rstrip("\n"), "a log without progress bars should be shown unchanged"


def _record(student: str, points: list[float], maxima: list[float]):
    from assignments.results.model import QuestionResult, SubmissionResult

    questions = [
        QuestionResult(grade_id=f"q{i}", kind="autograded", points=p, max_points=m)
        for i, (p, m) in enumerate(zip(points, maxima))
    ]
    return SubmissionResult(student=student, assignment="toy", door="standalone", questions=questions)


def test_the_demo_fails_unless_the_reference_has_full_marks_and_the_blank_zero_in_each_door():
    from assignments.demo.run import validation_problems

    ids = {"reference": "1006", "blank": "1001"}
    good = [_record("1006", [2, 3], [2, 3]), _record("1001", [0, 0], [2, 3])]
    assert validation_problems({"standalone": good, "nbgrader": good}, ids) == [], "a sound class was refused"
    bad = [_record("1006", [2, 1], [2, 3]), _record("1001", [0, 1], [2, 3])]
    problems = validation_problems({"standalone": good, "nbgrader": bad}, ids)
    assert problems == [
        "nbgrader: the reference student got 3/5, not full marks",
        "nbgrader: the blank student got 1/5, not zero",
    ], problems
    assert validation_problems({"nbgrader": good[:1]}, ids) == ["nbgrader: no record of the blank student"]
