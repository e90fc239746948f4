"""Mutation testing of the autograder: does each hidden suite reward the reference and catch mistakes?

A mutant is ``autograder/<assignment>/mutants/<name>.py``: a docstring that describes one mistake as a
student would make it and names the question it must cost points on and the answer cell it replaces,
then only the definitions the mistake changes (``mutants.py`` says how they replace the solution's)::

    \"\"\"Divides the attention scores by d_k instead of sqrt(d_k).

    question: scaled_dot_product_tests
    replaces: scaled_dot_product
    \"\"\"


    def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
        ...

The mutated answer cell is the current solution cell of ``replaces`` with those definitions swapped in.
A mutant whose mistake breaks a rule the skeleton states carries a ``contract: <the rule>`` line: the
visible check below its TODO must already fail on it (``visible_check``), so no student loses points for a
rule they could not see.

Variants (``autograder/<assignment>/variants/<name>.py``) are correct answers written differently, in the
same format (the first paragraph says how they differ; optionally ``source: <the tutorial imitated>``).
Each must keep full marks in both real doors; they are packed into as few notebooks as possible
(``variant_packs``).

The behaviour map of each assignment (``behaviour_map``) says, per graded definition, which behaviours
beyond eval-mode outputs a hidden test checks (and which mutant shows it can fail) or why a behaviour is
out of scope; its rows sit in the hidden test modules, beside the tests (``@behaviour`` decorators, a
module's ``OUT_OF_SCOPE``). Each module's ``CONTRACT_PARAMETERS`` (``contract_parameters``) says, per
signature parameter of the definitions it grades, which values its tests use, and why a parameter held at
one value is held there.

This module also checks the stand-ins (``autograder/<assignment>/stand_ins.py``) against the notebook.

Why one module of this length: every check here grades the reference or a changed copy of it and
compares with what the meta-tests expect; they share the notebook helpers and the grading calls.
"""

from __future__ import annotations

import ast
import copy
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import nbformat

from assignments import notebooks
from assignments.course import Assignment
from assignments.grading.doors.inprocess import execute_cells, grade_namespace, grade_notebook
from assignments.grading.selftest.kinds import KINDS
from assignments.grading.selftest.mutation import (
    Mutant,
    MutantError,
    definitions,
    load_folder,
    same_definition,
    without_definitions,
)
from assignments.grading.testkit.stand_ins import extract_definitions, stand_in_source
from assignments.results.model import Finding, SubmissionResult


def mutants(assignment: Assignment) -> list[Mutant]:
    return load_folder(assignment.mutants_dir, assignment)


def shortcut_answers(assignment: Assignment) -> list[Mutant]:
    """``autograder/<assignment>/shortcuts/*.py``: answers, in the mutants' format, that pass the hidden
    tests by using a library call their question forbids (the shortcut check must flag each on its
    ``question``; they are not mutants: they keep full marks unless the question's penalty says zero)."""
    return load_folder(assignment.shortcuts_dir, assignment)


def reference_notebook(assignment: Assignment):
    """The source notebook: answer cells hold the solution; hidden tests sit in cells never executed."""
    return assignment.source_notebook()


def apply_mutant(nb, mutant: Mutant):
    """A copy of ``nb`` whose answer cell ``mutant.replaces`` is that cell with the mutant's definitions
    swapped in (MutantError, a ValueError, when they no longer apply)."""
    mutated = copy.deepcopy(nb)
    targets = [c for c in mutated.cells if notebooks.grade_id(c) == mutant.replaces and notebooks.is_answer(c)]
    if len(targets) != 1:
        raise MutantError(f"{mutant.label}: no single answer cell with grade_id {mutant.replaces!r}")
    targets[0].source = mutant.apply_to(targets[0].source)
    return mutated


def full_marks_problems(result: SubmissionResult, label: str, only: set[str] | None = None) -> list[str]:
    """What keeps ``result`` from full marks. ``only``: just these questions (the rest of the notebook was left
    as released, so its cells fail and its questions score 0 by design)."""
    problems = [f"{label}: suite problem: {f.message}" for f in result.findings if f.code == "suite-problem"]
    if only is None:
        problems += [f"{label}: notebook cell failed: {f.message}" for f in result.findings if f.code == "cell-error"]
    for q in result.questions:
        if q.kind == "autograded" and q.points != q.max_points and (only is None or q.grade_id in only):
            failed = "; ".join(f"{t.name}: {t.message}" for t in q.tests if t.outcome != "passed")
            problems.append(f"{label}: {q.grade_id} scored {q.points}/{q.max_points} ({failed or 'no tests ran'})")
    return problems


def check_reference(assignment: Assignment, seeds=(0,)) -> list[str]:
    """Grade the reference once per seed (the notebook runs once; each seed is a full grading)."""
    namespace, findings = execute_cells(reference_notebook(assignment))
    problems = []
    for seed in seeds:
        result = grade_namespace(assignment, namespace, findings, "reference", seed=seed)
        problems += full_marks_problems(result, f"reference (seed {seed})")
    return problems


def blank_notebook(assignment: Assignment):
    """What students receive, made from the source by nbgrader's own preprocessors (no release/ needed)."""
    return notebooks.blank_notebook(assignment.source_notebook())


def check_blank(assignment: Assignment) -> list[str]:
    result = grade_notebook(assignment, blank_notebook(assignment), "blank")
    return [
        f"blank release: {q.grade_id} scored {q.points}/{q.max_points}"
        for q in result.questions
        if q.kind == "autograded" and q.points
    ]


def grade_mutant(assignment: Assignment, mutant: Mutant) -> SubmissionResult:
    """The reference notebook with the mutant applied, graded in-process (MutantError if it no longer
    applies). The notebook runs once: its visible check (``visible_check``) runs on the executed namespace
    before the hidden suite, and its outcome is the record's ``visible-check`` finding."""
    nb = apply_mutant(reference_notebook(assignment), mutant)
    namespace, findings = execute_cells(nb)
    check = visible_check(nb, mutant.replaces, namespace)
    result = grade_namespace(assignment, namespace, findings, mutant.name)
    result.findings.append(check)
    return result


# ------------------------------------------------------------------------------------- visible checks
VISIBLE_CHECK = "visible-check"  # the finding's code; its message is "passed" or "failed: <why>"


def visible_check_cell(nb, replaces: str):
    """The autograded test cell right below answer cell ``replaces`` (the check a student runs after that
    TODO), or None when the next graded cell is another answer."""
    cells = nb.cells
    start = next(i for i, c in enumerate(cells) if notebooks.grade_id(c) == replaces and notebooks.is_answer(c))
    for cell in cells[start + 1 :]:
        if notebooks.is_autograded_test(cell):
            return cell
        if notebooks.is_answer(cell):
            return None
    return None


def visible_check(nb, replaces: str, namespace: dict) -> Finding:
    """Run the visible part of the test cell below ``replaces`` (its hidden region cut out, as students
    have it) on a copy of an executed ``namespace``; a Finding that says whether it passed."""
    cell = visible_check_cell(nb, replaces)
    if cell is None:
        return Finding(VISIBLE_CHECK, "failed: no visible check below this answer cell", "info", replaces)
    visible = notebooks.strip_region(cell.source, *notebooks.HIDDEN_TESTS)
    _, failures = execute_cells(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(visible)]), dict(namespace))
    outcome = "passed" if not failures else "failed: " + failures[0].message.split(" raised ", 1)[-1]
    return Finding(VISIBLE_CHECK, outcome, "info", notebooks.grade_id(cell))


def visible_check_failed(result: SubmissionResult) -> bool | None:
    """Whether the graded mutant's visible check failed (None: it was not run)."""
    found = [f for f in result.findings if f.code == VISIBLE_CHECK]
    return None if not found else found[0].message.startswith("failed")


def contract_problems(mutant: Mutant, result: SubmissionResult) -> list[str]:
    """A mutant marked ``contract:`` whose visible check passes: a student loses points for a rule that
    nothing before submission flags."""
    if mutant.contract and visible_check_failed(result) is False:
        return [
            f"mutant {mutant.name} breaks a contract rule ({mutant.contract}) but the visible check below "
            f"{mutant.replaces} passes: state the rule there, or make the check flag it"
        ]
    return []


def whole_suite_mutants(assignment: Assignment, per_cell: int = 2) -> set[str]:
    """The names of the mutants a quick self-test grades on every question: the first ``per_cell`` (by name)
    of each answer cell's mutants. The rest are graded on their own question only (``forking.grade_mutants``'
    ``whole``); ``course selftest`` grades every mutant on every question."""
    by_cell: dict[str, list[str]] = {}
    for mutant in mutants(assignment):
        by_cell.setdefault(mutant.replaces, []).append(mutant.name)
    return {name for names in by_cell.values() for name in sorted(names)[:per_cell]}


def answer_questions(nb) -> dict[str, str]:
    """Each answer cell's grade_id -> the question it answers: the first autograded test cell after it (the
    rule ``testkit.handle.answered_by`` gives its definitions)."""
    owners, pending = {}, []
    for cell in (c for c in nb.cells if c.get("cell_type") == "code"):
        if notebooks.is_autograded_test(cell):
            owners.update(dict.fromkeys(pending, notebooks.grade_id(cell)))
            pending = []
        elif notebooks.is_answer(cell):
            pending.append(notebooks.grade_id(cell))
    return owners


def foreign_answer_problems(assignment: Assignment) -> list[str]:
    """Grade the reference in process with a profiler on every snippet a hidden test runs, and report each
    question whose tests ran code defined in another question's answer cell (the code in-process grading
    compiles as ``<cell grade_id>``). Such a test would cost a student points twice for one mistake: its
    question must ask for that definition as a stand-in. Holds for every possible mutant of that cell, where
    grading mutants on the whole suite shows it only for the mutants written."""
    from assignments.grading.testkit.handle import LocalHandle

    nb = reference_notebook(assignment)
    owner = answer_questions(nb)
    namespace, findings = execute_cells(nb)
    ran: dict[str, set[str]] = {}
    current: list[str | None] = [None]

    def profile(frame, event, _arg):
        name = frame.f_code.co_filename
        if event == "call" and current[0] and name.startswith("<cell ") and name[6:-1] in owner:
            ran.setdefault(current[0], set()).add(name[6:-1])

    original = LocalHandle._run

    def traced(self, *args, **kwargs):
        current[0] = self.question
        sys.setprofile(profile)
        try:
            return original(self, *args, **kwargs)
        finally:
            sys.setprofile(None)
            current[0] = None

    with mock.patch.object(LocalHandle, "_run", traced):
        result = grade_namespace(assignment, namespace, findings, "reference (traced)")
    problems = full_marks_problems(result, f"{assignment.name}: the traced reference")
    for question, cells in sorted(ran.items()):
        problems += [
            f"{assignment.name}: the tests of {question} ran code of answer cell {cell} ({owner[cell]}'s): "
            f"list its definitions in those tests' stand_ins"
            for cell in sorted(cells)
            if owner[cell] != question
        ]
    return problems


def mutant_problems(mutant: Mutant, result: SubmissionResult, whole: bool = True) -> list[str]:
    """What is wrong with a mutant's grading: full marks on its own question, or points lost on another
    (``whole=False``: the record holds the mutant's own question alone, so only that is checked)."""
    problems = []
    for q in result.questions:
        if q.kind != "autograded" or not (whole or q.grade_id == mutant.question):
            continue
        if q.grade_id == mutant.question and q.points >= q.max_points:
            problems.append(f"mutant {mutant.name} ({mutant.mistake}) kept full marks on {q.grade_id}")
        if q.grade_id != mutant.question and q.points != q.max_points:
            failed = "; ".join(f"{t.name}: {t.message}" for t in q.tests if t.outcome != "passed")
            problems.append(
                f"mutant {mutant.name} lost points on {q.grade_id}, not its own question {mutant.question}: {failed}"
            )
    return problems


def check_mutant(assignment: Assignment, mutant: Mutant) -> list[str]:
    try:
        result = grade_mutant(assignment, mutant)
    except MutantError as error:
        return [str(error)]
    return mutant_problems(mutant, result) + contract_problems(mutant, result)


def failed_tests(mutant: Mutant, result: SubmissionResult) -> list[tuple[str, str]]:
    """(test, message) of every test the mutant failed on its own question."""
    return [
        (t.name, t.message)
        for q in result.questions
        if q.grade_id == mutant.question
        for t in q.tests
        if t.outcome != "passed"
    ]


def misleading_failures(mutant: Mutant, result: SubmissionResult, rows: list[BehaviourRow]) -> list[str]:
    """Tests of the mutant's question that it fails although no behaviour-map row pairs them with it.

    The judgement: the behaviour map is where an author says which hidden test is meant to catch which
    mutant, and so which message fits that mistake. Any other failing test of the same question also shows
    the student its message, which describes the mistake that test was written for; so it is reported, as
    a warning, for a person to read. Pair the test with the mutant in the map when its message fits too.
    A mutant that no row names cannot be judged, and says so."""
    meant = {row.test for row in rows if row.mutant == mutant.name}
    if not meant:
        return [f"{mutant.name}: no behaviour-map row names this mutant, so its extra failures are not judged"]
    return [
        f"{mutant.name} also fails {test}, which no map row pairs with it; its message may point at another "
        f"mistake: {message.splitlines()[0] if message else '(no message)'}"
        for test, message in failed_tests(mutant, result)
        if test not in meant
    ]


def uncaught_tests(results: Iterable[SubmissionResult]) -> list[str]:
    """``question::test`` of every hidden test that passed in all of ``results`` (an assignment's mutants,
    graded): no mutant shows that the test can fail, so it may check nothing."""
    seen, caught = set(), set()
    for result in results:
        for q in result.questions:
            for t in q.tests:
                seen.add(f"{q.grade_id}::{t.name}")
                if t.outcome != "passed":
                    caught.add(f"{q.grade_id}::{t.name}")
    return sorted(seen - caught)


# ------------------------------------------------------------------------------------------- variants


def variants(assignment: Assignment) -> list[Mutant]:
    """``autograder/<assignment>/variants/*.py``: correct answers written differently, in the mutants' format."""
    return load_folder(assignment.variants_dir, assignment)


def variant_pack_count(assignment: Assignment) -> int:
    """How many notebooks ``variant_packs`` writes: the most variants any one answer cell has."""
    per_cell: dict[str, int] = {}
    for variant in variants(assignment):
        per_cell[variant.replaces] = per_cell.get(variant.replaces, 0) + 1
    return max(per_cell.values(), default=0)


def variant_packs(assignment: Assignment, chosen: range | None = None) -> list[tuple[list[Mutant], object]]:
    """[(variants, source notebook)]: the variants in as few notebooks as possible. All are correct, so one
    notebook may answer every cell with a variant at once: notebook k holds the k-th variant of each answer
    cell (in file order), the solution where a cell has fewer. ``chosen``: only those notebooks (indices from
    0 below ``variant_pack_count``), so that a test run can spread the packs over its workers."""
    by_cell: dict[str, list[Mutant]] = {}
    for variant in variants(assignment):
        by_cell.setdefault(variant.replaces, []).append(variant)
    packs = []
    for k in chosen if chosen is not None else range(variant_pack_count(assignment)):
        found = [cell[k] for cell in by_cell.values() if k < len(cell)]
        nb = reference_notebook(assignment)
        for variant in found:
            nb = apply_mutant(nb, variant)
        packs.append((found, nb))
    return packs


def filled_release(assignment: Assignment, replacements: dict[str, str] | None = None, others: bool = True):
    """The release notebook with ``replacements`` in their answer cells and every other answer cell filled
    from the source, or left as released when ``others`` is False."""
    answers = {
        notebooks.grade_id(c): notebooks.student_text(c)
        for c in assignment.source_notebook().cells
        if notebooks.is_answer(c)
    }
    nb = copy.deepcopy(assignment.release_notebook())
    for cell in nb.cells:
        gid = notebooks.grade_id(cell) if notebooks.is_answer(cell) else None
        if gid in (replacements or {}):
            cell.source = replacements[gid]
        elif gid is not None and others:
            cell.source = answers[gid]
    return nb


def as_submitted(assignment: Assignment, nb):
    """The release notebook answered as ``nb`` answers it, typed as a student would (no solution markers)."""
    return filled_release(
        assignment, {notebooks.grade_id(c): notebooks.student_text(c) for c in nb.cells if notebooks.is_answer(c)}
    )


DOORS = ("standalone", "nbgrader")


def answered_alone(assignment: Assignment, pack) -> object:
    """The release notebook with only ``pack``'s variant cells answered (typed as a student would), every other
    answer cell as released: each question's hidden tests stand in for the answers it builds on, so a variant
    earns its question's marks alone, and a notebook whose other cells stop at once costs a door seconds."""
    found, nb = pack
    mine = {v.replaces for v in found}
    answers = {notebooks.grade_id(c): notebooks.student_text(c) for c in nb.cells if notebooks.is_answer(c)}
    return filled_release(assignment, {gid: answers[gid] for gid in mine}, others=False)


def grade_variant_packs(
    assignment: Assignment,
    folder: Path,
    doors=DOORS,
    chosen: range | None = None,
    nbgrader_course: Path | None = None,
    alone: bool = False,
) -> list[tuple[list[Mutant], SubmissionResult]]:
    """Each variant pack (``chosen`` of them, or all) written under ``folder`` as a student's notebook and
    graded by each door in ``doors``: the real ones (the standalone door's sandboxed kernel; real ``nbgrader
    autograde``, these packs as students of one nbgrader course) and "in-process" (the mutants' door: the
    packs are our own code, so they may run here). A pack keeps its number (``variants-K``, from 1) whichever
    are chosen. ``nbgrader_course``: an nbgrader course folder to grade in, kept between calls (generating
    one costs about 13 s), made there when it has no gradebook yet; by default a new one under ``folder``.
    ``alone``: the real doors get ``answered_alone`` notebooks (check them with ``variant_problems(...,
    alone=True)``); in-process always grades the whole pack."""
    from assignments.grading.doors import standalone
    from assignments.grading.doors.nbgrader import door as nbgrader_door

    numbers = list(chosen if chosen is not None else range(variant_pack_count(assignment)))
    packs = dict(zip((f"variants-{k + 1}" for k in numbers), variant_packs(assignment, numbers), strict=True))
    graded = [
        (found, grade_notebook(assignment, nb, name)) for name, (found, nb) in packs.items() if "in-process" in doors
    ]
    paths = {}
    for name, pack in packs.items():
        paths[name] = folder / f"{name}.ipynb"
        paths[name].parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(answered_alone(assignment, pack) if alone else as_submitted(assignment, pack[1]), paths[name])
    if "standalone" in doors:
        graded += [(packs[s][0], standalone.grade_submission(assignment, p, s)) for s, p in paths.items()]
    if "nbgrader" in doors and paths:
        course = nbgrader_course or folder / "nbgrader-course"
        if not (course / "gradebook.db").is_file():
            nbgrader_door.prepare_course(assignment, course)
        graded += [
            (packs[s][0], nbgrader_door.autograde_one(assignment, course, s, p, nbgrader_door.NOTEBOOK_TIMEOUT_S))
            for s, p in paths.items()
        ]
    return graded


def variant_problems(variants_in: list[Mutant], result: SubmissionResult, alone: bool = False) -> list[str]:
    """What keeps a pack from full marks; ``alone``: on its variants' own questions only (``answered_alone``)."""
    names = ", ".join(v.name for v in variants_in)
    only = {v.question for v in variants_in} if alone else None
    return full_marks_problems(result, f"variants {names} through the {result.door} door", only)


# ------------------------------------------------------------------------------------ behaviour map


@dataclass(frozen=True)
class BehaviourRow:
    """One row of an assignment's behaviour map: a ``@behaviour`` on a hidden test, or an entry of a test
    module's ``OUT_OF_SCOPE``."""

    definition: str
    behaviour: str
    test: str  # a hidden test's function name, or "-" when the behaviour is out of scope
    mutant: str  # the mutant's file stem when ``test`` is named, else one sentence: why out of scope
    kind: str = ""  # one of ``kinds.KINDS`` when the row answers for one of them, else ""

    @property
    def in_scope(self) -> bool:
        return self.test != "-"


# Where the rows live (autograder/README.md, Behaviour maps): beside the tests they describe, in each
# hidden test module, read statically (``ast``) so that no suite is imported to check them.
BEHAVIOUR_DECORATOR = "behaviour"
OUT_OF_SCOPE = "OUT_OF_SCOPE"
CONTRACT_PARAMETERS = "CONTRACT_PARAMETERS"


def _decorator_name(node: ast.AST) -> str:
    func = node.func if isinstance(node, ast.Call) else node
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def suite_texts(assignment: Assignment) -> dict[str, str]:
    """File name -> text of each hidden test module of ``assignment``."""
    folder = assignment.suite_dir
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(folder.glob("test_*.py"))}


def _module_rows(texts: dict[str, str], table: str, width: int, longest: int = 0) -> tuple[list[tuple], bool]:
    """The tuples of each module's ``table = [...]`` (a literal list of tuples of ``width`` fields, or up to
    ``longest`` when given), and whether any module has one."""
    rows, found = [], False
    for name, text in texts.items():
        for node in ast.parse(text, name).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == table for t in node.targets):
                found = True
                try:
                    entries = ast.literal_eval(node.value)
                except ValueError as error:
                    raise ValueError(f"{name}: {table} must be a literal list of tuples ({error})") from None
                for entry in entries:
                    if not (isinstance(entry, tuple) and width <= len(entry) <= max(width, longest)):
                        fields = f"{width} to {longest}" if longest > width else str(width)
                        raise ValueError(f"{name}: each entry of {table} needs {fields} fields: {entry!r}")
                    rows.append(entry)
    return rows, found


def behaviour_map(assignment: Assignment, texts: dict[str, str] | None = None) -> list[BehaviourRow] | None:
    """The rows of the assignment's behaviour map, from its hidden test modules (``texts``: file name ->
    text, read from the suite when not given): each ``@behaviour(definition, behaviour, mutant=stem)`` on a
    test, then each module's ``OUT_OF_SCOPE`` entries (definition, behaviour, reason). None: no row at all."""
    texts = suite_texts(assignment) if texts is None else texts
    rows = []
    for name, text in texts.items():
        for node in ast.parse(text, name).body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for decorator in node.decorator_list:
                if not (isinstance(decorator, ast.Call) and _decorator_name(decorator) == BEHAVIOUR_DECORATOR):
                    continue
                try:
                    given = [ast.literal_eval(arg) for arg in decorator.args]
                    given += [ast.literal_eval(k.value) for k in decorator.keywords if k.arg == "mutant"]
                    kind = [ast.literal_eval(k.value) for k in decorator.keywords if k.arg == "kind"]
                except ValueError:
                    given, kind = [], []
                if len(given) != 3 or not all(isinstance(value, str) for value in [*given, *kind]):
                    raise ValueError(f"{name}: {node.name}: @behaviour needs three literal strings (and kind=)")
                definition, behaviour, mutant = given
                rows.append(BehaviourRow(definition, behaviour, node.name, mutant, *kind))
    # An entry is (definition, behaviour, why out of scope) or, for a row that answers for a kind, the kind
    # as a fourth field.
    out_of_scope, listed = _module_rows(texts, OUT_OF_SCOPE, 3, 4)
    rows += [BehaviourRow(entry[0], entry[1], "-", *entry[2:]) for entry in out_of_scope]
    return rows if rows or listed else None


def hidden_test_names(assignment: Assignment) -> set[str]:
    """Names of the module-level ``test_*`` functions of the assignment's hidden suite."""
    names = set()
    for path in assignment.suite_dir.glob("test_*.py"):
        names |= {
            node.name
            for node in ast.parse(path.read_text()).body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
        }
    return names


def behaviour_map_problems(assignment: Assignment, rows: list[BehaviourRow] | None = None) -> list[str]:
    """A missing map, rows naming a hidden test or mutant that does not exist, out-of-scope rows with no reason."""
    name = assignment.name
    rows = behaviour_map(assignment) if rows is None else rows
    if rows is None:
        return [
            f"{name}: no behaviour map: no hidden test carries @behaviour(...) and no test module has "
            f"{OUT_OF_SCOPE} (autograder/README.md, Behaviour maps)"
        ]
    tests = hidden_test_names(assignment)
    stems = {m.name for m in mutants(assignment)}
    problems = []
    for row in rows:
        where = f"{name} behaviour map, {row.definition} / {row.behaviour}"
        if row.in_scope:
            if row.test not in tests:
                problems.append(f"{where}: no hidden test {row.test}")
            if row.mutant not in stems:
                problems.append(f"{where}: no mutant {row.mutant} (autograder/{name}/mutants/)")
        elif not re.search(r"\w", row.mutant):
            problems.append(f"{where}: out of scope, but no reason is given")
        if row.kind and row.kind not in KINDS:
            problems.append(f"{where}: kind {row.kind!r} is not one of {', '.join(KINDS)}")
    return problems


def coverage_line(rows: list[BehaviourRow]) -> str:
    tested = sum(row.in_scope for row in rows)
    return f"behaviour map: {len(rows)} rows, {tested} with a hidden test, {len(rows) - tested} out of scope"


# ------------------------------------------------------------------------------- contract parameters
# Issue 33: a hidden suite that calls a function with one value of an argument the contract leaves open
# cannot see a mistake that shows only at other values (a rate ignored, a batch of one). So each test
# module lists, in CONTRACT_PARAMETERS, per signature parameter of the definitions it grades, the values
# its tests use; one value needs a reason.


@dataclass(frozen=True)
class ParameterRow:
    """One entry of a test module's ``CONTRACT_PARAMETERS``."""

    definition: str  # a graded definition (a function or a class), or Class.method
    parameter: str  # one of its signature parameters
    values: str  # the values the hidden tests use, separated by commas outside brackets
    reason: str  # why the parameter is held at one value, or "-" when the tests vary it (None in the module)

    @property
    def value_list(self) -> list[str]:
        """``values`` split at the commas that are not inside brackets or parentheses: "(3, 7), (1, 7)" is two."""
        parts, depth, current = [], 0, ""
        for char in self.values:
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
            elif char == "," and depth == 0:
                parts.append(current)
                current = ""
                continue
            current += char
        parts.append(current)
        return [part.strip() for part in parts if part.strip()]

    @property
    def varied(self) -> bool:
        return len(self.value_list) > 1


def contract_parameters(assignment: Assignment, texts: dict[str, str] | None = None) -> list[ParameterRow] | None:
    """The entries of the hidden test modules' ``CONTRACT_PARAMETERS`` (``texts`` as for ``behaviour_map``);
    None: no module has the table."""
    texts = suite_texts(assignment) if texts is None else texts
    rows, found = _module_rows(texts, CONTRACT_PARAMETERS, 4)
    if not found:
        return None
    return [ParameterRow(d, p, v, "-" if reason is None else reason) for d, p, v, reason in rows]


def _parameter_names(function: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    args = function.args
    names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
    return names[1:] if method and names else names


def graded_signatures(nb) -> dict[str, list[str]]:
    """Definition -> signature parameters, for every public function and class that an answer cell of
    ``nb`` defines (its solution, markers and all: they are comments). A class contributes its __init__
    and each public method, as ``Class`` (the union) and ``Class.method``."""
    found: dict[str, list[str]] = {}
    for cell in nb.cells:
        if cell.get("cell_type") != "code" or not notebooks.is_answer(cell):
            continue
        try:
            body = ast.parse(cell.source).body
        except SyntaxError:
            continue
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
                found[node.name] = _parameter_names(node, method=False)
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                union = []
                for member in node.body:
                    if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        continue
                    if member.name == "__init__" or not member.name.startswith("_"):
                        names = _parameter_names(member, method=True)
                        found[f"{node.name}.{member.name}"] = names
                        union += [n for n in names if n not in union]
                found[node.name] = union
    return found


def contract_parameter_problems(assignment: Assignment, rows: list[ParameterRow] | None = None) -> list[str]:
    """A missing table; a graded definition's signature parameter the table does not list; a row naming a
    definition no answer cell has; a parameter listed with no value, or with one value and no reason."""
    name = assignment.name
    rows = contract_parameters(assignment) if rows is None else rows
    if rows is None:
        return [f"{name}: no test module lists {CONTRACT_PARAMETERS} (autograder/README.md, Contract parameters)"]
    signatures = graded_signatures(assignment.source_notebook())
    problems = []
    for row in rows:
        where = f"{name} contract parameters, {row.definition} / {row.parameter}"
        if row.definition not in signatures:
            problems.append(f"{where}: no answer cell defines {row.definition}")
        if not row.value_list:
            problems.append(f"{where}: no values are listed")
        elif not row.varied and not re.search(r"\w", row.reason):
            problems.append(f"{where}: the hidden tests use one value ({row.values}) and no reason says why")
    listed = {(row.definition.split(".")[0], row.parameter) for row in rows}
    for definition, parameters in signatures.items():
        if "." in definition:
            continue
        missing = [p for p in parameters if (definition, p) not in listed]
        if missing:
            problems.append(
                f"{name} contract parameters: {definition}'s signature parameter(s) {', '.join(missing)} "
                f"not in the table (list the values the hidden tests use, or why one is enough)"
            )
    return problems


def parameter_lines(rows: list[ParameterRow]) -> list[str]:
    """What ``course selftest`` prints: the parameters varied, per definition, then each held fixed and why."""
    varied: dict[str, list[str]] = {}
    for row in rows:
        if row.varied:
            varied.setdefault(row.definition, []).append(row.parameter)
    fixed = [row for row in rows if not row.varied]
    lines = [f"contract parameters: {len(rows)} listed, {len(rows) - len(fixed)} varied, {len(fixed)} held fixed"]
    lines += [f"  varied  {definition}: {', '.join(names)}" for definition, names in varied.items()]
    lines += [f"  fixed   {row.definition}.{row.parameter} = {row.values}: {row.reason}" for row in fixed]
    return lines


# ---------------------------------------------------------------------------------------- stand-ins
# Policy: every definition in autograder/<assignment>/stand_ins.py equals (syntax trees compared, docstrings,
# comments and formatting aside) the source notebook's definition of the same name: the solution's when an
# answer cell defines it, else the provided cell's. A stand-in that must differ is listed here with the
# reason; the check fails when a listed stand-in no longer differs, so the list cannot go stale.
STAND_IN_EXCEPTIONS: dict[tuple[str, str], str] = {}


def notebook_definitions(nb) -> dict[str, list[tuple[str, ast.AST]]]:
    """name -> [(cell label, definition)] over the answer cells' solutions or, for a name no answer cell
    defines, the provided code cells (hidden test cells never run, so never count)."""
    answers, provided = {}, {}
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code" or notebooks.is_autograded_test(cell):
            continue
        label = f"{'answer' if notebooks.is_answer(cell) else 'provided'} cell {notebooks.grade_id(cell) or index}"
        try:
            found = definitions(ast.parse(cell.source).body)
        except SyntaxError:
            continue
        for name, node in found.items():
            (answers if notebooks.is_answer(cell) else provided).setdefault(name, []).append((label, node))
    return {**provided, **answers}


def stand_in_problems(
    assignment: Assignment, source: str | None = None, exceptions: dict[tuple[str, str], str] | None = None
) -> list[str]:
    """Stand-ins (``source``: stand_ins.py's text) that differ from the notebook's definition of the same
    name, and stale ``exceptions`` (default STAND_IN_EXCEPTIONS); see the policy above."""
    named = assignment.name
    source = stand_in_source(assignment) if source is None else source
    exceptions = STAND_IN_EXCEPTIONS if exceptions is None else exceptions
    ours = definitions(ast.parse(source).body)
    theirs = notebook_definitions(reference_notebook(assignment))
    problems = []
    for name, node in ours.items():
        excepted = exceptions.get((named, name))
        if name not in theirs:
            problems.append(f"{named}: stand-in {name} is defined by no cell of the source notebook")
            continue
        differs = [label for label, other in theirs[name] if not same_definition(node, other)]
        if differs and not excepted:
            problems.append(
                f"{named}: stand-in {name} differs from the definition in {', '.join(differs)}; "
                f"copy the notebook's (docstrings and comments may differ)"
            )
        if excepted and not differs:
            problems.append(f"{named}: stand-in {name} now equals the notebook's; remove its exception")
    problems += [
        f"{named}: exception for {name}, which stand_ins.py does not define"
        for (a, name) in exceptions
        if a == named and name not in ours
    ]
    return problems


def stand_in_notebook(assignment: Assignment) -> tuple[object, list[str]]:
    """(notebook, names): the source notebook answered by stand_ins.py. In each answer cell the definitions
    stand_ins.py also has are replaced by exactly what a stand-in call runs (``extract_definitions``: the
    stand-ins' imports, those definitions and the stand-ins they use); the cell's other definitions stay."""
    source = stand_in_source(assignment)
    offered = definitions(ast.parse(source).body)
    nb = copy.deepcopy(reference_notebook(assignment))
    replaced = []
    for cell in nb.cells:
        if cell.get("cell_type") != "code" or not notebooks.is_answer(cell):
            continue
        names = [name for name in definitions(ast.parse(cell.source).body) if name in offered]
        if names:
            rest = without_definitions(cell.source, names)
            cell.source = extract_definitions(source, names) + ("\n\n" + rest if rest.strip() else "")
            replaced += names
    return nb, replaced


def check_stand_ins(assignment: Assignment) -> list[str]:
    """Grade stand_ins.py as a student (``stand_in_notebook``): it must score full marks."""
    nb, replaced = stand_in_notebook(assignment)
    if not replaced:
        return []
    return full_marks_problems(grade_notebook(assignment, nb, "stand-ins"), "stand-ins as a student")
