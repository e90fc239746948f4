"""Real `nbgrader autograde` over a small class gives the same per-question scores as the hidden suite.

The toy assignment stands for the course's: the door's code is the same for every assignment of every
course folder, and every real assignment's source additionally passes `nbgrader validate` in the release
tests. The class (tests/fixtures/nbgrader_class.py: a noisy reference, the blank release, a student with
one mistake, display tricks, a daemon) is graded once, in one course with test_repair.py's repaired
notebooks.
"""

import hashlib

import pytest

from assignments.grading.doors import inprocess
from assignments.grading.doors.nbgrader import door as nbgrader_door
from assignments.results import table
from assignments.results.model import SubmissionResult
from tests.fixtures.nbgrader_class import BUGGY, DAEMON
from tests.helpers import alive

# One worker runs this module and test_repair.py (`--dist loadgroup`): the class is graded once.
pytestmark = pytest.mark.xdist_group("nbgrader_class")


@pytest.fixture(scope="module")
def graded(nbgrader_class):
    """(student -> record, student -> notebook, the buggy student's mutant, the daemon's traces)."""
    run = {
        "traces": nbgrader_class.traces,
        "course": nbgrader_class.course,
        "gradebook_sha": nbgrader_class.gradebook_sha,
    }
    return nbgrader_class.results, nbgrader_class.students, nbgrader_class.mutant, run


def test_reference_with_warnings_on_stderr_keeps_full_marks(graded):
    results, _, _, _ = graded
    reference = results["noisy-reference"]
    lost = {q.grade_id: q.points for q in reference.questions if q.kind == "autograded" and q.points != q.max_points}
    assert not lost, f"stderr warnings cost points through nbgrader: {lost}"


def test_blank_release_scores_zero(graded):
    results, _, _, _ = graded
    assert results["blank"].autograded_points == 0


def test_mutant_loses_points_on_its_own_question(graded):
    results, _, mutant, _ = graded
    buggy = results[BUGGY].question(mutant.question)
    assert buggy.points < buggy.max_points


def test_nbgrader_scores_equal_the_hidden_suite_on_the_same_notebooks(graded, nbgrader_class):
    results, students, _, _ = graded
    for student in ("blank", BUGGY):
        direct = inprocess.grade_notebook(nbgrader_class.assignment, students[student], student)
        differences = table.compare_doors([direct], [results[student]])
        assert not differences, f"{student}: " + "; ".join(differences)


def test_written_questions_wait_for_a_person(graded):
    results, _, _, _ = graded
    manual = [q for q in results["noisy-reference"].questions if q.kind == "manual"]
    assert manual and all(q.points is None for q in manual)


# --- attacks on the nbgrader door (tests/fixtures/nbgrader_attacks.py) -----------------------------------


@pytest.mark.parametrize("attack", [DAEMON, "attack-interactivity"])
def test_display_tricks_score_what_the_wrong_code_deserves(graded, attack):
    results, _, mutant, _ = graded
    deserved = results[BUGGY].scores()
    got = results[attack].scores()
    assert got == deserved, f"{attack}: nbgrader scored {got}; the same code without the trick scores {deserved}"
    assert results[attack].question(mutant.question).points < results[attack].question(mutant.question).max_points


def test_a_daemon_left_by_the_kernel_is_dead_after_the_run_and_the_gradebook_untouched(graded):
    results, _, _, run = graded
    pid_file = run["traces"] / "pid"
    assert pid_file.exists(), "the daemon cell never ran, so the fixture proves nothing"
    pid = int(pid_file.read_text())
    assert not alive(pid), f"the student's daemon (pid {pid}) outlived nbgrader autograde"
    assert not (run["traces"] / "struck").exists(), "the daemon wrote after the grading run"
    now = hashlib.sha256((run["course"] / "gradebook.db").read_bytes()).hexdigest()
    assert now == run["gradebook_sha"], "the gradebook changed after the run had finished"
    assert results[DAEMON].scores() == results[BUGGY].scores(), (
        "a notebook that leaves a daemon must score what its code deserves"
    )


def test_doors_that_disagree_are_flagged_per_question(graded):
    results, _, mutant, _ = graded
    honest = results[BUGGY]
    forged = SubmissionResult.from_dict(honest.to_dict())
    for question in forged.questions:
        if question.kind == "autograded":
            question.points = question.max_points  # a door fooled into full marks
    lines = nbgrader_door.flag_disagreements(forged, honest)
    flagged = [f.cell for f in forged.findings if f.code == "doors-disagree"]
    assert flagged == [mutant.question], f"flagged {flagged}; expected exactly the wrong question {mutant.question}"
    assert len(lines) == 1 and mutant.question in lines[0]
