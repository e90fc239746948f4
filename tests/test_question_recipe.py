"""README "Add or change a question", followed step by step on a copy of the toy assignment.

The toy (``tests/fixtures/toy.py``) gains a question ``negate``: its heading, answer cell and test cell
in the source notebook (step 1), hidden tests that split the cell's points (step 2; a wrong split is
named by hygiene first), a mutant (step 3) and a variant (step 4) in the change-only format, and the
checks of step 5: the catalog total follows the cell, hygiene is clean, the reference keeps full marks,
the blank release scores nothing, the mutant loses points on ``negate_tests`` only and the variant keeps
full marks. Step 6 (``course release``: nbgrader generate and validate) is the same pipeline
``tests/release/test_release.py`` runs on its own toy course; here the blank release is made the way release
makes it (nbgrader's preprocessors).
"""

from __future__ import annotations

import shutil

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from assignments.course import REPO, Course
from assignments.exports.text import question_title
from assignments.grading.selftest import checks as selftest
from assignments.grading.selftest.mutation import load_folder
from assignments.release import hygiene_problems
from tests.fixtures import toy

# Step 1: the cells, as the recipe lists them.
HEADING = "## Negation\nWrite `negate(x)`: the elementwise negative of a tensor."
ANSWER = (
    'def negate(x):\n    """-x for a tensor x of any shape; do not modify x. About 1 line."""\n'
    "    ### BEGIN SOLUTION\n    return -x\n    ### END SOLUTION"
)
TESTS_CELL = (
    "import torch\nassert torch.equal(negate(torch.tensor([1.0, -2.0])), torch.tensor([-1.0, 2.0])), "
    "'negate([1, -2]) should be [-1, 2]'\nprint('visible checks passed')\n"
    "### BEGIN HIDDEN TESTS\nfrom assignments.grading.door import hidden_tests\n"
    "hidden_tests('toy', 'negate_tests', globals())\n### END HIDDEN TESTS"
)

# Step 2: hidden tests whose points split the cell's 2 points.
HIDDEN = """\
import torch
from assignments.grading.testkit.checks import expect_close, question


@question("negate_tests", points=1)
def test_negate_values(student):
    x = torch.arange(6.0).reshape(2, 3) - 2.5
    out = student.run("result = negate(x)", x=x, timeout=5)
    expect_close(out, -x, "negate(x)")


@question("negate_tests", points={second})
def test_negate_leaves_its_input_alone(student):
    x = torch.arange(4.0) - 1.5
    out = student.run("before = x.clone()\\nnegate(x)\\nresult = x", x=x, timeout=5)
    expect_close(out, x, "x after negate(x) (negate must not modify its input)")
"""

# Step 3: a mutant; step 4: a variant (both in the change-only format).
MUTANT = '''"""Negates in place, so the caller's tensor changes too.

question: negate_tests
replaces: negate
"""


def negate(x):
    return x.neg_()
'''
VARIANT = '''"""Multiplies by -1 instead of using unary minus.

question: negate_tests
replaces: negate
"""


def negate(x):
    return x * -1
'''


def meta(grade_id, **flags):
    return {
        "nbgrader": {
            "schema_version": 3,
            "grade": False,
            "solution": False,
            "locked": False,
            "grade_id": grade_id,
            **flags,
        }
    }


def test_adding_a_question_by_the_recipe(tmp_path):
    the_toy = toy.build(tmp_path / "toy")
    shutil.copyfile(REPO / "pyproject.toml", the_toy.folder / "pyproject.toml")  # the course's settings
    course = Course(the_toy.folder)
    hw = course.assignment(toy.NAME)
    before = hw.total_points

    # Step 1: heading, answer cell and test cell, after the last test cell.
    source = nbformat.read(hw.source_path, as_version=4)
    at = max(i for i, cell in enumerate(source.cells) if cell.metadata.get("nbgrader", {}).get("grade"))
    source.cells[at + 1 : at + 1] = [
        new_markdown_cell(HEADING, metadata=meta("negate_intro", locked=True)),
        new_code_cell(ANSWER, metadata=meta("negate", solution=True)),
        new_code_cell(TESTS_CELL, metadata=meta("negate_tests", grade=True, locked=True, points=2)),
    ]
    nbformat.write(source, hw.source_path)
    assert hw.total_points == before + 2, "the total follows the cell's points; nothing else is typed"
    assert question_title(hw, "negate_tests") == "Negation", "the question is titled by its heading"

    # Step 2: a split that does not add up is named, with both totals, before anything runs.
    tests_file = hw.suite_dir / "test_negate.py"
    tests_file.write_text(HIDDEN.format(second=2))
    problems = hygiene_problems(course, [toy.NAME])
    assert any(
        "question negate_tests: its test cell" in p and "gives 2 points" in p and "add up to 3" in p for p in problems
    ), problems
    tests_file.write_text(HIDDEN.format(second=1))
    assert hygiene_problems(course, [toy.NAME]) == []

    # Steps 3 and 4: a mutant and a variant.
    (hw.mutants_dir).mkdir(parents=True, exist_ok=True)
    (hw.mutants_dir / "negate_in_place.py").write_text(MUTANT)
    variants = hw.suite_dir / "variants"
    variants.mkdir()
    (variants / "negate_times_minus_one.py").write_text(VARIANT)

    # Step 5: the self-test's checks.
    assert selftest.check_reference(hw) == []
    assert selftest.check_blank(hw) == []
    [mutant] = selftest.mutants(hw)
    assert selftest.check_mutant(hw, mutant) == []
    [variant] = load_folder(variants, hw)
    graded = selftest.grade_mutant(hw, variant)
    assert selftest.full_marks_problems(graded, variant.name) == [], "a correct variant must keep full marks"
