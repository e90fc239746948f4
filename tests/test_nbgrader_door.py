"""Real `nbgrader autograde` over a small class gives the same per-question scores as the hidden suite.

One assignment (the quickest to execute) stands for all three: the door's code is the same for each,
and every assignment's source additionally passes `nbgrader validate` in the release tests.
"""

import hashlib

import pytest

from assignments.course import default
from assignments import demo_class, notebooks
from assignments.grading import inprocess, nbgrader_door, selftest
from assignments.results import table
from assignments.results.model import SubmissionResult
from autograder.fixtures import nbgrader_attacks

ASSIGNMENT = "transfer_lm"

# One worker runs this module (`--dist loadgroup`): its module fixture grades the class once, not per worker.
pytestmark = [
    pytest.mark.skipif(
        not (default().source_dir / ASSIGNMENT).exists() or not (default().release_dir / ASSIGNMENT).exists(),
        reason=f"{ASSIGNMENT} has no source or release notebook yet"),
    pytest.mark.xdist_group('nbgrader_door'),
]

# Before every cell, this student's kernel writes a library-style warning to stderr, as torch and
# transformers do. nbgrader zeroes a test cell with stderr output unless the course config says otherwise.
NOISY_CELL = '''import sys, warnings
warnings.warn("this call is deprecated", FutureWarning)
def _noise(*args):
    print("UserWarning: TypedStorage is deprecated", file=sys.stderr)
get_ipython().events.register("pre_run_cell", _noise)
'''


def noisy(nb):
    return nbgrader_attacks.with_cell(nb, NOISY_CELL)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder, traces = tmp_path_factory.mktemp("class"), tmp_path_factory.mktemp("daemon")
    mutant = selftest.mutants(ASSIGNMENT)[0]
    buggy = demo_class.filled_release(ASSIGNMENT, {mutant.replaces: mutant.code})
    blank = default().assignment(ASSIGNMENT).release_notebook()
    students = {
        "noisy-reference": noisy(demo_class.filled_release(ASSIGNMENT)),
        "blank": blank,
        f"buggy-{mutant.name}": buggy,
        # The same wrong code with one cell added that tries to make nbgrader read full marks.
        "attack-formatter": nbgrader_attacks.with_cell(buggy, nbgrader_attacks.FORMATTER),
        "attack-interactivity": nbgrader_attacks.with_cell(buggy, nbgrader_attacks.INTERACTIVITY),
        "attack-daemon": nbgrader_attacks.with_cell(blank, nbgrader_attacks.daemon(
            traces / "pid", traces / "struck")),
    }
    paths = demo_class.write_folder(students, folder, default().assignment(ASSIGNMENT).source_path.name)
    course = tmp_path_factory.mktemp("course")
    results = nbgrader_door.autograde(ASSIGNMENT, paths, root=course, progress=False)
    after_run = hashlib.sha256((course / "gradebook.db").read_bytes()).hexdigest()
    return {r.student: r for r in results}, students, mutant, {"traces": traces, "course": course,
                                                               "gradebook_sha": after_run}


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
    buggy = results[f"buggy-{mutant.name}"].question(mutant.question)
    assert buggy.points < buggy.max_points


def test_nbgrader_scores_equal_the_hidden_suite_on_the_same_notebooks(graded):
    results, students, _, _ = graded
    for student in ("blank", next(s for s in students if s.startswith("buggy-"))):
        direct = inprocess.grade_notebook(ASSIGNMENT, students[student], student)
        differences = table.compare_doors([direct], [results[student]])
        assert not differences, f"{student}: " + "; ".join(differences)


def test_written_questions_wait_for_a_person(graded):
    results, _, _, _ = graded
    manual = [q for q in results["noisy-reference"].questions if q.kind == "manual"]
    assert manual and all(q.points is None for q in manual)


# --- attacks on the nbgrader door (autograder/fixtures/nbgrader_attacks.py) ------------------------------

@pytest.mark.parametrize("attack", ["attack-formatter", "attack-interactivity"])
def test_display_tricks_score_what_the_wrong_code_deserves(graded, attack):
    results, _, mutant, _ = graded
    deserved = results[f"buggy-{mutant.name}"].scores()
    got = results[attack].scores()
    assert got == deserved, f"{attack}: nbgrader scored {got}; the same code without the trick scores {deserved}"
    assert results[attack].question(mutant.question).points < results[attack].question(mutant.question).max_points


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def test_a_daemon_left_by_the_kernel_is_dead_after_the_run_and_the_gradebook_untouched(graded):
    results, _, _, run = graded
    pid_file = run["traces"] / "pid"
    assert pid_file.exists(), "the daemon cell never ran, so the fixture proves nothing"
    pid = int(pid_file.read_text())
    assert not alive(pid), f"the student's daemon (pid {pid}) outlived nbgrader autograde"
    assert not (run["traces"] / "struck").exists(), "the daemon wrote after the grading run"
    now = hashlib.sha256((run["course"] / "gradebook.db").read_bytes()).hexdigest()
    assert now == run["gradebook_sha"], "the gradebook changed after the run had finished"
    assert results["attack-daemon"].autograded_points == 0, "a blank notebook with a daemon must score 0"


def test_doors_that_disagree_are_flagged_per_question(graded):
    results, _, mutant, _ = graded
    honest = results[f"buggy-{mutant.name}"]
    forged = SubmissionResult.from_dict(honest.to_dict())
    for question in forged.questions:
        if question.kind == "autograded":
            question.points = question.max_points   # a door fooled into full marks
    lines = nbgrader_door.flag_disagreements(forged, honest)
    flagged = [f.cell for f in forged.findings if f.code == "doors-disagree"]
    assert flagged == [mutant.question], f"flagged {flagged}; expected exactly the wrong question {mutant.question}"
    assert len(lines) == 1 and mutant.question in lines[0]
