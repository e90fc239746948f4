"""docs/how-to/add-question.md ("Add or change a question"), followed on a copy of the toy assignment, one kind of edit after another.

The toy (``tests/fixtures/toy.py``) starts with a mutant, a variant and a shortcut answer of its own, and
gains a question ``negate``: its heading, answer cell and test cell (add a question), hidden tests sharing
the cell's points (a split that does not add up is named by hygiene first), a mutant, a variant, a shortcut
answer and a behaviour-map row in the suite's own format; then the self-test's checks (the reference keeps
full marks, the blank release scores nothing, the mutant loses points on ``negate_tests`` only, the variant
keeps full marks, the shortcut is flagged on its question only). Then the other kinds: change the points
(one cell), add and remove a hidden test, rename the grade_id, add a written question with a mark scheme,
and remove the question again. Step 6 (``course release``: nbgrader generate and validate) is the same
pipeline ``tests/release/test_release.py`` runs on its own toy course; here the blank release is made the
way release makes it (nbgrader's preprocessors).
"""

from __future__ import annotations

import shutil

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from assignments.course import REPO, Course
from assignments.exports.text import question_title
from assignments.grading.selftest import behaviour_rows, mutant_checks, mutation, parameter_rows, reference
from assignments.grading.selftest.mutation import load_folder
from assignments.grading.submission import shortcuts
from assignments.grading.testkit.handle import answered_by
from assignments.release import hygiene_problems
from tests.fixtures import toy
from tests.helpers import points_per_test

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

# Step 2: hidden tests that share the cell's 2 points ({points}: a deliberate weight, first a wrong one).
HIDDEN = """\
import torch
from assignments.grading.testkit import behaviour, expect_close, question


@question("negate_tests"{points})
def test_negate_values(student):
    x = torch.arange(6.0).reshape(2, 3) - 2.5
    out = student.run("result = negate(x)", x=x, timeout=5)
    expect_close(out, -x, "negate(x)")


@question("negate_tests")
{row}def test_negate_leaves_its_input_alone(student):
    x = torch.arange(4.0) - 1.5
    out = student.run("before = x.clone()\\nnegate(x)\\nresult = x", x=x, timeout=5)
    expect_close(out, x, "x after negate(x) (negate must not modify its input)")


CONTRACT_PARAMETERS = [("negate", "x", "(2, 3), (4,)", None)]
"""
# The behaviour-map row the mutant below earns: the test that catches it, and which behaviour.
ROW = '@behaviour("negate", "the input is left unchanged", mutant="negate_in_place")\n'
EXTRA_TEST = """

@question("negate_tests")
def test_negate_of_zero_is_zero(student):
    out = student.run("result = negate(torch.zeros(3))", timeout=5)
    expect_close(out, torch.zeros(3), "negate(zeros)")
"""

# Step 3: a mutant; step 4: a variant (both in the change-only format).
MUTANT = '''"""Negates in place, so the caller's tensor changes too.

question: negate_tests
replaces: negate
"""


def negate(x):
    return x.neg_()
'''
SHORTCUT = '''"""Calls torch.neg, which the question forbids.

question: negate_tests
replaces: negate
"""


def negate(x):
    return torch.neg(x)
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


def graded_cells(hw):
    return {
        cell.metadata["nbgrader"]["grade_id"]: cell
        for cell in hw.source_notebook().cells
        if "nbgrader" in cell.metadata
    }


def edit_source(hw, change):
    nb = nbformat.read(hw.source_path, as_version=4)
    change(nb)
    nbformat.write(nb, hw.source_path)


def shortcut_findings(hw, answer):
    """{question: count} of the shortcut check's findings for the reference with ``answer`` swapped in."""
    nb = mutant_checks.apply_mutant(reference.reference_notebook(hw), answer)
    found = {}
    for finding in shortcuts.check(nb, answered_by(hw.source_notebook()), hw.shortcut_rules):
        found[finding.cell] = found.get(finding.cell, 0) + 1
    return found


def test_every_kind_of_question_edit_by_the_recipe(tmp_path):
    the_toy = toy.build(tmp_path / "toy", mutants=toy.MUTANTS, variants=toy.VARIANTS, shortcuts=toy.SHORTCUTS)
    shutil.copyfile(REPO / "pyproject.toml", the_toy.folder / "pyproject.toml")  # the course's settings
    course = Course(the_toy.folder)
    hw = course.assignment(toy.NAME)
    before = hw.total_points
    assert hygiene_problems(course, [toy.NAME]) == [], "the toy starts clean"

    # Add a question (step 1): heading, answer cell and test cell, after the last test cell.
    def add_cells(source):
        at = max(i for i, cell in enumerate(source.cells) if cell.metadata.get("nbgrader", {}).get("grade"))
        source.cells[at + 1 : at + 1] = [
            new_markdown_cell(HEADING, metadata=meta("negate_intro", locked=True)),
            new_code_cell(ANSWER, metadata=meta("negate", solution=True)),
            new_code_cell(TESTS_CELL, metadata=meta("negate_tests", grade=True, locked=True, points=2)),
        ]

    edit_source(hw, add_cells)
    assert hw.total_points == before + 2, "the total follows the cell's points; nothing else is typed"
    assert question_title(hw, "negate_tests") == "Negation", "the question is titled by its heading"

    # Hidden tests (step 2): a weight that breaks the split is named, with both totals, before anything runs.
    tests_file = hw.suite_dir / "test_negate.py"
    tests_file.write_text(HIDDEN.format(points=", points=2", row=""))
    problems = hygiene_problems(course, [toy.NAME])
    assert any("question negate_tests: its test cell" in p and "leaves nothing" in p for p in problems), problems
    tests_file.write_text(HIDDEN.format(points="", row=""))
    assert hygiene_problems(course, [toy.NAME]) == []
    assert set(points_per_test(hw).items()) >= {(("negate_tests", "test_negate_values"), 1.0)}

    # A mutant (step 3), a variant (step 4), a shortcut answer with its rule, and the behaviour-map row.
    (hw.mutants_dir / "negate_in_place.py").write_text(MUTANT)
    (hw.variants_dir / "negate_times_minus_one.py").write_text(VARIANT)
    (hw.shortcuts_dir / "negate_with_torch_neg.py").write_text(SHORTCUT)
    edit_source(
        hw,
        lambda nb: [
            c.metadata.update({"course": {"forbidden_calls": ["torch.neg"]}})
            for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade_id") == "negate_tests"
        ],
    )
    tests_file.write_text(HIDDEN.format(points="", row=ROW))
    assert behaviour_rows.behaviour_map_problems(hw) == []
    assert not [p for p in parameter_rows.contract_parameter_problems(hw) if "negate" in p]
    assert hygiene_problems(course, [toy.NAME]) == []

    # Check (step 5): the self-test's checks, on the toy's own mutant, variant and shortcut and on the new ones.
    assert reference.check_reference(hw) == []
    assert reference.check_blank(hw) == []
    rows = behaviour_rows.behaviour_map(hw)
    for mutant in mutation.mutants(hw):  # the toy's own and the new one: each costs points on its question only
        graded = mutant_checks.grade_mutant(hw, mutant)
        assert mutant_checks.mutant_problems(mutant, graded) == [], mutant.name
        assert mutant_checks.misleading_failures(mutant, graded, rows) == [], f"{mutant.name}: a row pairs each failure"
    for variant in load_folder(hw.variants_dir, hw):
        graded = mutant_checks.grade_mutant(hw, variant)
        assert reference.full_marks_problems(graded, variant.name) == [], "a correct variant must keep full marks"
    for answer in mutation.shortcut_answers(hw):
        assert shortcut_findings(hw, answer) == {answer.question: 1}, answer.name

    # Change its points: the cell only; the tests without points share the new total.
    edit_source(
        hw,
        lambda nb: [
            c.metadata["nbgrader"].update(points=3)
            for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade_id") == "negate_tests"
        ],
    )
    assert hygiene_problems(course, [toy.NAME]) == [] and hw.total_points == before + 3
    assert points_per_test(hw)[("negate_tests", "test_negate_values")] == 1.5

    # Add a hidden test, then remove it: the shares follow, nothing else changes.
    tests_file.write_text(tests_file.read_text() + EXTRA_TEST)
    assert hygiene_problems(course, [toy.NAME]) == []
    assert points_per_test(hw)[("negate_tests", "test_negate_of_zero_is_zero")] == 1.0
    tests_file.write_text(tests_file.read_text().replace(EXTRA_TEST, ""))
    assert points_per_test(hw)[("negate_tests", "test_negate_values")] == 1.5

    # Rename its grade_id: the test cell (metadata and hidden_tests call), the tests' @question and the
    # question: lines. Hygiene names what still uses the old name.
    def rename(nb):
        for cell in nb.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") == "negate_tests":
                cell.metadata["nbgrader"]["grade_id"] = "negation_tests"
                cell.source = cell.source.replace("'negate_tests'", "'negation_tests'")

    edit_source(hw, rename)
    assert any(
        "'negate_tests', which is not an autograded test cell" in p for p in hygiene_problems(course, [toy.NAME])
    )
    for path in [tests_file, *hw.suite_dir.glob("*/negate_*.py")]:
        path.write_text(path.read_text().replace("negate_tests", "negation_tests"))
    tests_file = tests_file.rename(hw.suite_dir / "test_negation.py")  # one file per question, named by it
    assert hygiene_problems(course, [toy.NAME]) == []
    assert {m.question for m in mutation.mutants(hw) if m.replaces == "negate"} == {"negation_tests"}

    # A written question with its mark scheme: one Markdown cell; the total follows.
    written = (
        "Why does negate return a new tensor?\n\n### BEGIN SOLUTION\nSo the caller's tensor stays as it was.\n"
        "### END SOLUTION\n\n=== BEGIN MARK SCHEME ===\nMentions the caller's tensor.\n=== END MARK SCHEME ==="
    )
    edit_source(
        hw,
        lambda nb: nb.cells.append(
            new_markdown_cell(written, metadata=meta("negate_written", grade=True, solution=True, points=1))
        ),
    )
    assert hw.total_points == before + 4 and hygiene_problems(course, [toy.NAME]) == []

    # Remove the question: its cells, its test module and its mutant, variant and shortcut files.
    edit_source(
        hw,
        lambda nb: nb.update(
            cells=[
                c
                for c in nb.cells
                if not c.metadata.get("nbgrader", {}).get("grade_id", "").startswith(("negate", "negation"))
            ]
        ),
    )
    for path in [tests_file, *hw.suite_dir.glob("*/negate_*.py")]:
        path.unlink()
    assert hw.total_points == before and hygiene_problems(course, [toy.NAME]) == []
    assert behaviour_rows.behaviour_map_problems(hw) == [] and {
        row.definition for row in behaviour_rows.behaviour_map(hw)
    } == {"add"}, "the removed question's rows went with its test module"
