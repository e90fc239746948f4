"""The autograder tested like a product: reference full marks, blank zero, every mutant caught on its own
question (two of each answer cell's graded on every question, and every question traced for code of another
question's answer), every hidden test failed by at least one mutant, every variant full marks, and the
stand-ins both equal to the notebook's solution and worth full marks when graded as a student.

Grading here is in-process (``assignments.grading.doors.inprocess``): the notebooks are our own, and a kernel
per mutant would cost minutes. The same suites run behind the sandboxed standalone door on the reference in
grading/doors/test_standalone_course.py, behind both real doors on the variant packs ``door_packs`` chooses in
``test_variants_keep_full_marks_in_both_doors``, and `make demo` grades its class through both and compares
them question by question. `course selftest` grades every mutant on every question and every pack through both
doors.
"""

import ast
import fcntl
import json
import os
from pathlib import Path

import pytest

from assignments import notebooks
from assignments.course import Assignment, default
from assignments.grading.selftest import (
    behaviour_rows,
    foreign_answers,
    forking,
    mutant_checks,
    mutation,
    parameter_rows,
    reference,
    stand_in_checks,
    variant_checks,
    visible_checks,
)
from assignments.grading.selftest.mutation import MutantError, apply_change
from assignments.grading.testkit.stand_ins import stand_in_source
from assignments.results.model import Finding, QuestionResult, SubmissionResult, TestResult

pytestmark = pytest.mark.course

ASSIGNMENTS = default().present()
HW = {name: default().assignment(name) for name in ASSIGNMENTS}  # what the self-test's checks take
TOY = default().assignment("toy")  # not in this course: checks that read no file of it
MUTANTS = [(a, m) for a in ASSIGNMENTS for m in mutation.mutants(HW[a])]
REPEATS = 10


BATCHES_PER_ASSIGNMENT = 3


def mutant_batches(assignment: str) -> dict[str, int]:
    """{mutant: its batch}: an assignment's mutants in notebook order of the cells they replace, dealt in turn
    into BATCHES_PER_ASSIGNMENT batches, so that each batch gets its share of every cell's mutants (cut into
    runs instead, transfer_lm's first batch held the 100 sample_next mutants and took twice the second's 369 s).
    A batch is graded from one forked run of the reference and is one xdist group: smaller than a whole
    assignment, so the two workers end together."""
    positions = forking.answer_positions(reference.reference_notebook(HW[assignment]))
    ordered = sorted(mutation.mutants(HW[assignment]), key=lambda m: (positions.get(m.replaces, -1), m.name))
    return {mutant.name: index % BATCHES_PER_ASSIGNMENT for index, mutant in enumerate(ordered)}


BATCHES = {assignment: mutant_batches(assignment) for assignment in ASSIGNMENTS}


def whole_suite_mutants(assignment: Assignment, per_cell: int = 2) -> set[str]:
    """The names of the mutants graded here on every question: the first ``per_cell`` (by name) of each answer
    cell's mutants. The rest are graded on their own question only (``forking.grade_mutants``' ``whole``)."""
    by_cell: dict[str, list[str]] = {}
    for mutant in mutation.mutants(assignment):
        by_cell.setdefault(mutant.replaces, []).append(mutant.name)
    return {name for names in by_cell.values() for name in sorted(names)[:per_cell]}


# The mutants graded on every question here: two of each answer cell's. Every other mutant is graded on its own
# question only (every cell of the notebook still runs): CI's 90 minutes cannot hold all ~580 on the whole suite
# (62 of check-course's 80 worker-minutes on 2026-12-03). What the whole suite would add for them, a mutant that
# costs points on another question, comes from another question's tests running this cell's code (a stand-in
# missing): test_no_question_runs_another_questions_answer traces that for every question, whatever the mutant.
# `course selftest` grades every mutant on every question.
WHOLE = {assignment: whole_suite_mutants(HW[assignment]) for assignment in ASSIGNMENTS}


class Gradings:
    """Each batch of mutants (``mutant_batches``) is graded once per test session, all together
    (``forking.grade_mutants``: one run of the reference, forked at each answer cell), by whichever test
    asks first; the tests share the records through files in the session's folder, one lock per batch.
    The per-mutant tests of a batch are one xdist group (``in_batch``), so no worker waits on that lock
    while another grades; the per-assignment tests come last and mostly find every batch graded."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def result(self, assignment: str, mutant: mutation.Mutant) -> SubmissionResult:
        batch = BATCHES[assignment][mutant.name]
        with open(self.folder / f"{assignment}-batch-{batch}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not self._path(assignment, mutant.name).exists():
                chosen = [m for m in mutation.mutants(HW[assignment]) if BATCHES[assignment][m.name] == batch]
                whole = WHOLE[assignment].__contains__
                for graded, outcome in forking.grade_mutants(HW[assignment], chosen, lambda m: whole(m.name)):
                    record = {"error": str(outcome)} if isinstance(outcome, MutantError) else outcome.to_dict()
                    self._path(assignment, graded.name).write_text(json.dumps(record))
            record = json.loads(self._path(assignment, mutant.name).read_text())
        if "error" in record:
            raise MutantError(record["error"])
        return SubmissionResult.from_dict(record)

    def _path(self, assignment: str, name: str) -> Path:
        return self.folder / f"{assignment}-{name}.json"


def in_batch(assignment: str, mutant: mutation.Mutant):
    return pytest.mark.xdist_group(f"mutants-{assignment}-{BATCHES[assignment][mutant.name]}")


@pytest.fixture(scope="session")
def gradings(tmp_path_factory):
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the session's folder; each worker's own basetemp is a folder inside it
    return Gradings(root / "mutant-gradings")


def test_every_assignment_has_a_suite_and_mutants():
    for assignment in ASSIGNMENTS:
        assert list((default().autograder_dir / assignment).glob("test_*.py")), f"{assignment} has no hidden tests"
        assert mutation.mutants(HW[assignment]), f"{assignment} has no mutants"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_reference_scores_full_marks_on_ten_gradings(assignment):
    problems = reference.check_reference(HW[assignment], seeds=range(REPEATS))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_blank_release_scores_zero(assignment):
    problems = reference.check_blank(HW[assignment])
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------------------------ stand-ins


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_stand_ins_equal_the_notebooks_definitions(assignment):
    """One policy: each stand-in is the notebook's own definition (syntax trees compared), so a test that
    uses a stand-in on both sides of a comparison still compares against the solution."""
    problems = stand_in_checks.stand_in_problems(HW[assignment])
    assert not problems, "\n".join(problems)


def test_a_stand_in_that_drifts_from_the_solution_is_reported():
    source = stand_in_source("transfer_lm")
    drifted = source.replace(
        "blocked = torch.ones(size, size, dtype=torch.bool).triu(diagonal=1)",
        "blocked = torch.ones(size, size, dtype=torch.bool).triu(diagonal=0)",
    )
    assert drifted != source, "the test's edit no longer matches stand_ins.py"
    problems = stand_in_checks.stand_in_problems(HW["transfer_lm"], drifted)
    assert (
        len(problems) == 1
        and "stand-in generate_square_subsequent_mask differs from the definition in answer cell square_mask"
        in problems[0]
    ), problems
    reason = {("transfer_lm", "generate_square_subsequent_mask"): "a listed, explained difference"}
    assert stand_in_checks.stand_in_problems(HW["transfer_lm"], drifted, reason) == []
    assert stand_in_checks.stand_in_problems(HW["transfer_lm"], source, reason) == [
        "transfer_lm: stand-in generate_square_subsequent_mask now equals the notebook's; remove its exception"
    ]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_stand_ins_score_full_marks_as_a_student(assignment):
    """stand_ins.py as a student: the notebook's provided cells, and in the answer cells what each stand-in
    call runs (its imports and the stand-ins it uses included). Catches what the comparison cannot: a
    listed exception, or a stand-in's imports and helpers."""
    nb, replaced = stand_in_checks.stand_in_notebook(HW[assignment])
    assert replaced, f"{assignment}: stand_ins.py answers no answer cell"
    problems = stand_in_checks.check_stand_ins(HW[assignment])
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------------------------ mutants

SOLUTION = '''def double(x):
    """Twice x."""
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION


class Counter:
    """Counts."""

    def __init__(self):
        ### BEGIN SOLUTION
        self.count = 0
        ### END SOLUTION

    def add(self, n):
        ### BEGIN SOLUTION
        self.count += n
        return self.count
        ### END SOLUTION
'''
DOC = '"""A mistake.\n\nquestion: q_tests\nreplaces: q\n"""\n\n\n'


def test_a_mutant_replaces_only_the_definitions_it_states():
    cell = apply_change(SOLUTION, DOC + "class Counter:\n    def add(self, n):\n        return n\n", "mutant toy/m")
    tree = {node.name: node for node in ast.parse(cell).body}
    assert ast.unparse(tree["double"]) == ast.unparse(ast.parse(SOLUTION).body[0]), "double must stay the solution's"
    methods = {m.name: ast.unparse(m) for m in tree["Counter"].body if isinstance(m, ast.FunctionDef)}
    assert "self.count = 0" in methods["__init__"] and methods["add"].endswith("return n"), cell
    assert cell.count("### BEGIN SOLUTION") == cell.count("### END SOLUTION") == 2, (
        f"the replaced method's solution markers must go with it:\n{cell}"
    )
    exec(compile(cell, "<mutated>", "exec"), {})


def test_a_mutant_adds_a_method_only_where_its_docstring_says_so():
    added = "class Counter:\n    def reset(self):\n        self.count = 0\n"
    cell = apply_change(SOLUTION, DOC.replace("replaces: q\n", "replaces: q\nadds: Counter.reset\n") + added, "m")
    namespace = {}
    exec(compile(cell, "<mutated>", "exec"), namespace)
    counter = namespace["Counter"]()
    assert counter.add(3) == 3 and counter.reset() is None and counter.count == 0, cell


@pytest.mark.parametrize(
    "change,expected",
    [
        ("def triple(x):\n    return 3 * x\n", "mutant toy/stale: the solution cell no longer defines triple"),
        (
            "class Counter:\n    def reset(self):\n        self.count = 0\n",
            "mutant toy/stale: the solution's class Counter no longer defines reset",
        ),
        (
            'def double(x):\n    """Other words."""\n    return 2 * x   # same code\n',
            "mutant toy/stale: double is identical to the solution's (a no-op change)",
        ),
        (
            "class Counter:\n    def add(self, n):\n        self.count += n\n        return self.count\n",
            "mutant toy/stale: Counter.add is identical to the solution's (a no-op change)",
        ),
        ("print('side effect')\n", "mutant toy/stale: a mutant holds only imports and the definitions it changes"),
        (
            "class Counter(dict):\n    def add(self, n):\n        return n\n",
            "class Counter's bases or decorators differ",
        ),
    ],
)
def test_a_stale_or_no_op_mutant_fails_loudly(change, expected):
    with pytest.raises(MutantError) as raised:
        apply_change(SOLUTION, DOC + change, "mutant toy/stale")
    assert expected in str(raised.value), str(raised.value)


def test_every_mutant_and_shortcut_applies_to_the_current_solution():
    problems = []
    for assignment in ASSIGNMENTS:
        nb = reference.reference_notebook(HW[assignment])
        for mutant in mutation.mutants(HW[assignment]) + mutation.shortcut_answers(HW[assignment]):
            try:
                mutated = mutant_checks.apply_mutant(nb, mutant)
            except MutantError as error:
                problems.append(str(error))
                continue
            cell = next(c for c in mutated.cells if notebooks.grade_id(c) == mutant.replaces)
            if cell.source != mutant.code:
                problems.append(f"{mutant.label}: Mutant.code differs from the cell apply_mutant builds")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "assignment,mutant", [pytest.param(a, m, id=f"{a}-{m.name}", marks=in_batch(a, m)) for a, m in MUTANTS]
)
def test_mutant_loses_points_on_its_own_question_only(assignment, mutant, gradings):
    try:
        result = gradings.result(assignment, mutant)
    except MutantError as error:
        pytest.fail(str(error))
    problems = mutant_checks.mutant_problems(mutant, result, whole=mutant.name in WHOLE[assignment])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_question_runs_another_questions_answer(assignment):
    """Traced on the reference: no question's hidden tests run code from another question's answer cell (each
    asks for it as a stand-in), so no mistake in one answer costs points on another question, whichever mutant
    it is. With the mutants graded on the whole suite (``WHOLE``) this stands in for grading all of them so."""
    problems = foreign_answers.foreign_answer_problems(HW[assignment])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_question_has_tests_whose_points_add_up_to_the_cell(assignment):
    """A question's tests are worth exactly its cell's points: no test can be worth more than the cell."""
    from assignments.points import split_problems

    assert split_problems(default().assignment(assignment)) == []


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_autograded_question_has_a_mutant(assignment):
    covered = {m.question for m in mutation.mutants(HW[assignment])}
    questions = {q.grade_id for q in default().assignment(assignment).questions if q.kind == "autograded"}
    assert questions <= covered, f"questions no mutant checks: {sorted(questions - covered)}"


def test_a_hidden_test_that_every_mutant_passes_is_uncaught():
    def graded(outcomes):
        tests = [TestResult(name, "q_tests", 0.0, 1.0, outcome) for name, outcome in outcomes.items()]
        question = QuestionResult("q_tests", "autograded", 3.0, 0.0, tests)
        return SubmissionResult("m", "a", "in-process", questions=[question])

    results = [graded({"t1": "failed", "t2": "passed"}), graded({"t1": "passed", "t2": "passed", "t3": "error"})]
    assert mutant_checks.uncaught_tests(results) == ["q_tests::t2"]


# Last in the module, so that under xdist the mutants are mostly graded (by the test above) when it runs.
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_hidden_test_fails_for_at_least_one_mutant(assignment, gradings):
    """A hidden test that no mutant fails may check nothing: add a realistic mutant it catches (on its own
    question only), or merge it into a test that does."""
    try:
        results = [gradings.result(assignment, mutant) for mutant in mutation.mutants(HW[assignment])]
    except MutantError as error:
        pytest.fail(str(error))
    uncaught = mutant_checks.uncaught_tests(results)
    assert not uncaught, f"{assignment}: hidden tests no mutant fails: {uncaught}"


# ------------------------------------------------------------------------- contracts and visible checks


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_contract_mutants_fail_their_visible_check(assignment, gradings):
    """A mutant marked `contract:` breaks a rule the skeleton states; the visible check below its TODO must
    flag it before the student submits (no surprise deductions). Reuses the per-mutant gradings."""
    problems = []
    for mutant in mutation.mutants(HW[assignment]):
        if mutant.contract:
            try:
                problems += visible_checks.contract_problems(mutant, gradings.result(assignment, mutant))
            except MutantError as error:
                problems.append(str(error))
    assert not problems, "\n".join(problems)


def test_a_contract_mutant_whose_visible_check_passes_is_a_problem():
    mutant = mutation.Mutant("m", "q_tests", "q", "A mistake.", "", TOY, contract="names as stated")
    result = SubmissionResult(
        "m", "toy", "in-process", findings=[Finding(visible_checks.VISIBLE_CHECK, "passed", "info", "q_tests")]
    )
    assert (
        visible_checks.contract_problems(mutant, result)
        and "names as stated" in visible_checks.contract_problems(mutant, result)[0]
    )
    result.findings[0].message = "failed: AssertionError: the embedding needs vocab_size + 1 rows"
    assert visible_checks.contract_problems(mutant, result) == []


def test_mutant_files_declare_contract_and_source_lines():
    mutant = mutation.mutants(HW["transformers"])
    scaled = next(m for m in mutant if m.name == "mini_bert_scales_embeddings")
    assert scaled.contract == "the embeddings enter the positional encoding unscaled"
    assert next(m for m in mutant if m.name == "block_pre_layernorm").contract == ""
    bentrevett = next(v for v in mutation.variants(HW["transformers"]) if v.name == "predict_bentrevett_tutorial")
    assert bentrevett.source.startswith("bentrevett/pytorch-sentiment-analysis")


def test_a_failed_test_the_map_does_not_pair_with_the_mutant_is_warned_about():
    tests = [
        TestResult("test_meant", "q_tests", 0.0, 1.0, "failed", "the mistake it was written for"),
        TestResult("test_other", "q_tests", 0.0, 1.0, "failed", "points at another mistake"),
    ]
    result = SubmissionResult(
        "m", "a", "in-process", questions=[QuestionResult("q_tests", "autograded", 2.0, 0.0, tests)]
    )
    mutant = mutation.Mutant("m", "q_tests", "q", "A mistake.", "", default().assignment("a"))
    rows = [behaviour_rows.BehaviourRow("f", "a behaviour", "test_meant", "m")]
    warnings = mutant_checks.misleading_failures(mutant, result, rows)
    assert len(warnings) == 1 and "test_other" in warnings[0] and "points at another mistake" in warnings[0]
    assert "not judged" in mutant_checks.misleading_failures(mutant, result, [])[0]


# ------------------------------------------------------------------------------------ behaviour maps

MAP = {
    "test_f.py": """
from assignments.grading.testkit import behaviour, question


@question("f_tests")
@behaviour("f", "train mode", mutant="f_never_trains")
def test_f_trains(student):
    pass


OUT_OF_SCOPE = [("f", "device", "Grading hides accelerators.")]
""",
    "test_g.py": "def test_g(student):\n    pass\n",
}


def test_the_behaviour_map_is_read_from_the_test_modules():
    rows = behaviour_rows.behaviour_map(TOY, MAP)
    assert rows == [
        behaviour_rows.BehaviourRow("f", "train mode", "test_f_trains", "f_never_trains"),
        behaviour_rows.BehaviourRow("f", "device", "-", "Grading hides accelerators."),
    ]
    assert behaviour_rows.coverage_line(rows) == "behaviour map: 2 rows, 1 with a hidden test, 1 out of scope"
    assert behaviour_rows.behaviour_map(TOY, {"test_g.py": MAP["test_g.py"]}) is None
    with pytest.raises(ValueError, match="three literal strings"):
        behaviour_rows.behaviour_map(TOY, {"test_f.py": MAP["test_f.py"].replace(', mutant="f_never_trains"', "")})
    with pytest.raises(ValueError, match="3 to 4 fields"):
        behaviour_rows.behaviour_map(TOY, {"test_f.py": MAP["test_f.py"].replace(' "Grading hides accelerators."', "")})


def test_every_graded_definition_answers_for_every_kind_of_behaviour():
    """A row names its kind (kind= on @behaviour, a fourth field out of scope); a definition with no row of
    some kind is a problem that names the kinds, and rows of every kind clear it."""
    from assignments.grading.selftest import kinds

    text = MAP["test_f.py"].replace('mutant="f_never_trains"', 'mutant="f_never_trains", kind="state"')
    text = text.replace('"Grading hides accelerators.")', '"Grading hides accelerators.", "device")')
    rows = behaviour_rows.behaviour_map(TOY, {"test_f.py": text})
    assert {(row.definition, row.kind) for row in rows} == {("f", "state"), ("f", "device")}
    (problem,) = kinds.kind_problems("toy", {"f": "f_tests"}, rows)
    assert "f has no row of kind randomness, validation-order" in problem and "state" not in problem
    rows += [behaviour_rows.BehaviourRow("f", kind, "-", "Not in f.", kind) for kind in kinds.KINDS]
    assert kinds.kind_problems("toy", {"f": "f_tests"}, rows) == []
    wrong = [behaviour_rows.BehaviourRow("f", "x", "-", "why", "colour")]
    assert any("kind 'colour' is not one of" in p for p in behaviour_rows.behaviour_map_problems(TOY, wrong))


def test_a_map_row_naming_a_missing_test_or_mutant_is_a_problem():
    rows = [
        behaviour_rows.BehaviourRow("MiniBERT", "x", "test_no_such_test", "mini_bert_scales_embeddings"),
        behaviour_rows.BehaviourRow("MiniBERT", "y", "test_mini_bert_matches_reference", "no_such_mutant"),
        behaviour_rows.BehaviourRow("MiniBERT", "z", "-", ""),
    ]
    problems = behaviour_rows.behaviour_map_problems(HW["transformers"], rows)
    assert len(problems) == 3, problems
    assert "no hidden test test_no_such_test" in problems[0] and "no mutant no_such_mutant" in problems[1]
    assert "no reason" in problems[2]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_behaviour_map_names_existing_tests_and_mutants(assignment):
    """The assignment's map (its test modules' @behaviour and OUT_OF_SCOPE): every named hidden test and
    mutant exists, every out-of-scope row has its reason (an assignment whose map is still to be written is
    skipped, visibly)."""
    rows = behaviour_rows.behaviour_map(HW[assignment])
    if rows is None:
        pytest.skip(f"{assignment} has no behaviour map yet")
    assert rows, f"{assignment}: the behaviour map has no rows"
    problems = behaviour_rows.behaviour_map_problems(HW[assignment], rows)
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------------- contract parameters

PARAMETERS = {
    "test_toy.py": """
CONTRACT_PARAMETERS = [
    ("add", "a", "(2, 3) tensor, 2", None),
    ("add", "b", "(2, 3) tensor, 5", None),
    ("scale", "x", "(2, 3), (4,)", None),
    ("scale", "k", "3", None),
]
"""
}


def edited(replace: str, by: str) -> dict[str, str]:
    return {"test_toy.py": PARAMETERS["test_toy.py"].replace(replace, by)}


def test_the_contract_parameters_are_read_from_the_test_modules_and_printed(toy_assignment):
    rows = parameter_rows.contract_parameters(toy_assignment.assignment, PARAMETERS)
    assert rows[0] == parameter_rows.ParameterRow("add", "a", "(2, 3) tensor, 2", "-")
    assert rows[0].value_list == ["(2, 3) tensor", "2"] and rows[0].varied, "commas inside brackets split nothing"
    assert not rows[3].varied
    lines = parameter_rows.parameter_lines(rows)
    assert lines[0] == "contract parameters: 4 listed, 3 varied, 1 held fixed"
    assert "  varied  add: a, b" in lines and any(line.startswith("  fixed   scale.k = 3") for line in lines)
    assert parameter_rows.contract_parameters(toy_assignment.assignment, {"test_toy.py": "# no table here\n"}) is None
    with pytest.raises(ValueError, match="4 fields"):
        parameter_rows.contract_parameters(toy_assignment.assignment, edited('"3", None', '"3"'))


def test_contract_parameter_problems_on_the_toy_course(toy_assignment):
    """The toy's answer cells define add(a, b) and scale(x, k): a parameter held at one value needs a reason,
    every signature parameter needs a row, and a row must name a definition an answer cell has."""
    toy = toy_assignment.assignment
    assert parameter_rows.graded_signatures(toy.source_notebook()) == {"add": ["a", "b"], "scale": ["x", "k"]}
    problems = parameter_rows.contract_parameter_problems(toy, parameter_rows.contract_parameters(toy, PARAMETERS))
    assert len(problems) == 1 and "scale / k" in problems[0] and "one value (3) and no reason" in problems[0]
    reasoned = edited('"3", None', '"3", "scale is add in a loop."')
    assert parameter_rows.contract_parameter_problems(toy, parameter_rows.contract_parameters(toy, reasoned)) == []
    partial = {
        "test_toy.py": reasoned["test_toy.py"].replace('    ("add", "b", "(2, 3) tensor, 5", None),\n', ""),
        "test_subtract.py": 'CONTRACT_PARAMETERS = [("subtract", "a", "1, 2", None)]\n',
    }
    problems = parameter_rows.contract_parameter_problems(toy, parameter_rows.contract_parameters(toy, partial))
    assert len(problems) == 2, problems
    assert "no answer cell defines subtract" in problems[0] and "add's signature parameter(s) b" in problems[1]
    assert "no test module lists CONTRACT_PARAMETERS" in parameter_rows.contract_parameter_problems(toy, None)[0]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_contract_parameter_table_lists_every_signature_parameter(assignment):
    """The assignment's contract parameters (its test modules' CONTRACT_PARAMETERS): every signature parameter of its graded
    definitions listed, each held at one value with a reason (an assignment still without a table is skipped,
    visibly)."""
    rows = parameter_rows.contract_parameters(HW[assignment])
    if rows is None:
        pytest.skip(f"{assignment} has no contract-parameter table yet")
    problems = parameter_rows.contract_parameter_problems(HW[assignment], rows)
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------------------------ variants


def test_variants_are_packed_one_per_answer_cell_per_notebook():
    packs = variant_checks.variant_packs(HW["transformers"])
    per_cell = {}
    for variant in mutation.variants(HW["transformers"]):
        per_cell[variant.replaces] = per_cell.get(variant.replaces, 0) + 1
    assert len(packs) == max(per_cell.values()), "one notebook per variant of the cell with the most variants"
    packed = [v.name for chosen, _ in packs for v in chosen]
    assert sorted(packed) == sorted(v.name for v in mutation.variants(HW["transformers"]))
    for chosen, nb in packs:
        assert len({v.replaces for v in chosen}) == len(chosen), "two variants of one cell in one notebook"
        for variant in chosen:
            cell = next(c for c in nb.cells if notebooks.grade_id(c) == variant.replaces and notebooks.is_answer(c))
            assert cell.source == variant.code


# CI grades every variant in process on its own question (forked from one run of the reference, as the mutants
# are), and sends some packs through both real doors: packs 1 and 2 (every question's first two variants) and
# the pack of each question's slowest variant where that took SLOW_S or more in process, since a door's limits
# bite the slow answers (a Python loop over rows). All 66 packs through both doors took about 40 worker-minutes
# (2026-12-03), past what CI's 90 minutes hold beside the rest; `course selftest` sends every pack.
DOOR_PACKS = 2
SLOW_S = 5.0


class VariantGradings:
    """Each assignment's variants graded once per session (``forking.grade_mutants``, own question only), by
    whichever test asks first; the records are shared through files in the session's folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def results(self, assignment: str) -> dict[str, SubmissionResult | MutantError]:
        path = self.folder / f"{assignment}.json"
        with open(self.folder / f"{assignment}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not path.exists():
                graded = forking.grade_mutants(HW[assignment], mutation.variants(HW[assignment]), lambda variant: False)
                path.write_text(
                    json.dumps(
                        {v.name: {"error": str(o)} if isinstance(o, MutantError) else o.to_dict() for v, o in graded}
                    )
                )
            records = json.loads(path.read_text())
        return {
            name: MutantError(r["error"]) if "error" in r else SubmissionResult.from_dict(r)
            for name, r in records.items()
        }


@pytest.fixture(scope="session")
def variant_gradings(tmp_path_factory):
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    return VariantGradings(root / "variant-gradings")


def own_seconds(variant: mutation.Mutant, result: SubmissionResult) -> float:
    return sum(t.seconds for q in result.questions if q.grade_id == variant.question for t in q.tests)


def door_packs(assignment: str, results: dict[str, SubmissionResult]) -> list[int]:
    """The packs (indices from 0) CI sends through both doors: the first DOOR_PACKS, and the pack of each
    answer cell's slowest variant when its own tests took SLOW_S or more in process. A variant's pack is its
    position among its cell's variants (``variant_checks.variant_packs``)."""
    by_cell: dict[str, list[mutation.Mutant]] = {}
    for variant in mutation.variants(HW[assignment]):
        by_cell.setdefault(variant.replaces, []).append(variant)
    chosen = set(range(min(DOOR_PACKS, variant_checks.variant_pack_count(HW[assignment]))))
    for cell in by_cell.values():
        timed = [
            (own_seconds(v, results[v.name]), k)
            for k, v in enumerate(cell)
            if not isinstance(results[v.name], MutantError)
        ]
        if timed and max(timed)[0] >= SLOW_S:
            chosen.add(max(timed)[1])
    return sorted(chosen)


def test_door_packs_take_the_first_two_and_each_cells_slowest_slow_variant():
    variants = mutation.variants(HW["transfer_lm"])
    sample_next = [v for v in variants if v.replaces == "sample_next"]
    timings = {v.name: 0.1 for v in variants}
    timings[sample_next[7].name] = SLOW_S + 1
    timings[sample_next[9].name] = SLOW_S + 2
    timings[next(v for v in variants if v.replaces == "dpo_loss").name] = SLOW_S - 1  # fast enough: no pack

    def graded(variant):
        tests = [TestResult("t", variant.question, 1.0, 1.0, "passed", seconds=timings[variant.name])]
        question = QuestionResult(variant.question, "autograded", 1.0, 1.0, tests)
        return SubmissionResult(variant.name, "transfer_lm", "in-process", questions=[question])

    assert door_packs("transfer_lm", {v.name: graded(v) for v in variants}) == [0, 1, 9]


def enough_variants(assignment: str) -> None:
    if len(mutation.variants(HW[assignment])) < 5:
        pytest.skip(f"{assignment} has {len(mutation.variants(HW[assignment]))} variants; at least 5 are due")


@pytest.fixture(scope="session")
def zygote():
    """One warm-kernel zygote per worker for the standalone door, as a batch has (``doors.batch``): a pack's
    kernel is forked from a process that has imported torch and the rest instead of starting cold. None
    where kernels cannot have namespaces (cold kernels; the scores cannot depend on it)."""
    from assignments.grading.doors.batch import start_zygote

    started = start_zygote()
    yield started
    if started is not None:
        started.close()


@pytest.fixture
def warm_kernels(zygote, monkeypatch):
    """The zygote's socket for this test only, so that no other test on the worker (the Colab rehearsal's
    kernels, a Gradescope bundle) is handed it. Real nbgrader starts its own kernels and never reads it."""
    from assignments.grading.sandbox.warm_kernels import ZYGOTE_ENV

    if zygote is not None:
        monkeypatch.setenv(ZYGOTE_ENV, zygote.socket)


@pytest.fixture(scope="session")
def nbgrader_courses(tmp_path_factory):
    """One nbgrader course folder per assignment and worker, generated by the first chunk that grades there."""
    return lambda assignment: tmp_path_factory.getbasetemp() / f"nbgrader-course-{assignment}"


def variants_group(assignment: str):
    return pytest.param(assignment, marks=pytest.mark.xdist_group(f"variants-{assignment}"))


@pytest.mark.parametrize("assignment", [variants_group(a) for a in ASSIGNMENTS])
def test_every_variant_keeps_full_marks_on_its_question_in_process(assignment, variant_gradings):
    """Every variant earns its own question's full marks, graded in process on that question (every cell of
    the notebook runs; the inputs and results make the standalone door's torch.save round trip)."""
    enough_variants(assignment)
    problems = []
    for variant in mutation.variants(HW[assignment]):
        result = variant_gradings.results(assignment)[variant.name]
        if isinstance(result, MutantError):
            problems.append(str(result))
        else:
            problems += reference.full_marks_problems(result, f"variant {variant.name}", {variant.question})
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("assignment", [variants_group(a) for a in ASSIGNMENTS])
def test_variants_keep_full_marks_in_both_doors(assignment, tmp_path, nbgrader_courses, warm_kernels, variant_gradings):
    """The packs ``door_packs`` chooses earn their variants' full marks in the standalone door and in real
    `nbgrader autograde`. The notebooks hold the pack's variants alone, every other answer as released
    (``variant_checks.answered_alone``: each question's tests stand in for the answers it builds on), so a door
    spends seconds on the rest of the notebook instead of its whole run."""
    enough_variants(assignment)
    chosen = door_packs(assignment, variant_gradings.results(assignment))
    graded = variant_checks.grade_variant_packs(
        HW[assignment], tmp_path, chosen=chosen, nbgrader_course=nbgrader_courses(assignment), alone=True
    )
    assert {r.door for _, r in graded} == set(variant_checks.DOORS)
    problems = [p for found, result in graded for p in variant_checks.variant_problems(found, result, alone=True)]
    assert not problems, "\n".join(problems)
