"""Real `nbgrader autograde` over a small class gives the same per-question scores as the hidden suite.

One assignment (the quickest to execute) stands for all three: the door's code is the same for each,
and every assignment's source additionally passes `nbgrader validate` in the release tests.
"""

import nbformat
import pytest

from assignments import demo_class, notebooks
from assignments.grading import inprocess, nbgrader_door, selftest, table

ASSIGNMENT = "transfer_lm"

pytestmark = pytest.mark.skipif(
    not (notebooks.SOURCE_DIR / ASSIGNMENT).exists() or not (notebooks.RELEASE_DIR / ASSIGNMENT).exists(),
    reason=f"{ASSIGNMENT} has no source or release notebook yet")

# Before every cell, this student's kernel writes a library-style warning to stderr, as torch and
# transformers do. nbgrader zeroes a test cell with stderr output unless the course config says otherwise.
NOISY_CELL = '''import sys, warnings
warnings.warn("this call is deprecated", FutureWarning)
def _noise(*args):
    print("UserWarning: TypedStorage is deprecated", file=sys.stderr)
get_ipython().events.register("pre_run_cell", _noise)
'''


def noisy(nb):
    nb = nbformat.from_dict(nb)
    first_test = next(i for i, cell in enumerate(nb.cells) if notebooks.is_autograded_test(cell))
    nb.cells.insert(first_test, nbformat.v4.new_code_cell(NOISY_CELL))
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    mutant = selftest.mutants(ASSIGNMENT)[0]
    students = {
        "noisy-reference": noisy(demo_class.filled_release(ASSIGNMENT)),
        "blank": notebooks.release_notebook(ASSIGNMENT),
        f"buggy-{mutant.name}": demo_class.filled_release(ASSIGNMENT, {mutant.replaces: mutant.code}),
    }
    paths = demo_class.write_folder(students, folder, notebooks.notebook_path(ASSIGNMENT).name)
    results = nbgrader_door.autograde(ASSIGNMENT, paths, root=tmp_path_factory.mktemp("course"))
    return {r.student: r for r in results}, students, mutant


def test_reference_with_warnings_on_stderr_keeps_full_marks(graded):
    results, _, _ = graded
    reference = results["noisy-reference"]
    lost = {q.grade_id: q.points for q in reference.questions if q.kind == "autograded" and q.points != q.max_points}
    assert not lost, f"stderr warnings cost points through nbgrader: {lost}"


def test_blank_release_scores_zero(graded):
    results, _, _ = graded
    assert results["blank"].autograded_points == 0


def test_mutant_loses_points_on_its_own_question(graded):
    results, _, mutant = graded
    buggy = results[f"buggy-{mutant.name}"].question(mutant.question)
    assert buggy.points < buggy.max_points


def test_nbgrader_scores_equal_the_hidden_suite_on_the_same_notebooks(graded):
    results, students, _ = graded
    for student in ("blank", next(s for s in students if s.startswith("buggy-"))):
        direct = inprocess.grade_notebook(ASSIGNMENT, students[student], student)
        differences = table.compare_doors([direct], [results[student]])
        assert not differences, f"{student}: " + "; ".join(differences)


def test_written_questions_wait_for_a_person(graded):
    results, _, _ = graded
    manual = [q for q in results["noisy-reference"].questions if q.kind == "manual"]
    assert manual and all(q.points is None for q in manual)
