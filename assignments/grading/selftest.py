"""Mutation testing of the autograder: does each hidden suite reward the reference and catch mistakes?

A mutant is ``autograder/<assignment>/mutants/<name>.py``: a docstring that describes one mistake as a
student would make it and names the question it must cost points on and the answer cell it replaces::

    \"\"\"Divides the attention scores by d_k instead of sqrt(d_k).

    question: scaled_dot_product_tests
    replaces: scaled_dot_product
    \"\"\"
    def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
        ...

The file's whole text becomes the source of answer cell ``replaces`` in the reference notebook.
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass
from pathlib import Path

from .. import notebooks
from ..course import resolve
from .inprocess import execute_cells, grade_namespace, grade_notebook
from ..results.model import SubmissionResult


@dataclass(frozen=True)
class Mutant:
    name: str
    question: str
    replaces: str
    mistake: str
    code: str


def _field(doc: str, key: str, path: Path) -> str:
    match = re.search(rf"^\s*{key}:\s*(\S+)\s*$", doc, re.MULTILINE)
    if not match:
        raise ValueError(f"{path}: the docstring must have a line '{key}: <grade_id>'")
    return match.group(1)


def load_mutant(path: Path) -> Mutant:
    code = path.read_text()
    doc = ast.get_docstring(ast.parse(code)) or ""
    mistake = doc.split("\n\n")[0].strip()
    if not mistake:
        raise ValueError(f"{path}: the docstring must start with the mistake it makes")
    return Mutant(path.stem, _field(doc, "question", path), _field(doc, "replaces", path), mistake, code)


def mutants(assignment: str) -> list[Mutant]:
    return [load_mutant(p) for p in sorted(resolve(assignment).mutants_dir.glob("*.py"))
            if not p.name.startswith("_")]


def shortcut_answers(assignment: str) -> list[Mutant]:
    """``autograder/<assignment>/shortcuts/*.py``: answers, in the mutants' format, that pass the hidden
    tests by using a library call their question forbids (the shortcut check must flag each on its
    ``question``; they are not mutants: they keep full marks unless the question's penalty says zero)."""
    return [load_mutant(p) for p in sorted(resolve(assignment).shortcuts_dir.glob("*.py"))
            if not p.name.startswith("_")]


def reference_notebook(assignment: str):
    """The source notebook: answer cells hold the solution; hidden tests sit in cells never executed."""
    return resolve(assignment).source_notebook()


def apply_mutant(nb, mutant: Mutant):
    mutated = copy.deepcopy(nb)
    targets = [c for c in mutated.cells if notebooks.grade_id(c) == mutant.replaces and notebooks.is_answer(c)]
    if len(targets) != 1:
        raise ValueError(f"mutant {mutant.name}: no single answer cell with grade_id {mutant.replaces!r}")
    targets[0].source = mutant.code
    return mutated


def full_marks_problems(result: SubmissionResult, label: str) -> list[str]:
    problems = [f"{label}: suite problem: {f.message}" for f in result.findings if f.code == "suite-problem"]
    problems += [f"{label}: notebook cell failed: {f.message}" for f in result.findings if f.code == "cell-error"]
    for q in result.questions:
        if q.kind == "autograded" and q.points != q.max_points:
            failed = "; ".join(f"{t.name}: {t.message}" for t in q.tests if t.outcome != "passed")
            problems.append(f"{label}: {q.grade_id} scored {q.points}/{q.max_points} ({failed or 'no tests ran'})")
    return problems


def check_reference(assignment: str, seeds=(0,)) -> list[str]:
    """Grade the reference once per seed (the notebook runs once; each seed is a full grading)."""
    namespace, findings = execute_cells(reference_notebook(assignment))
    problems = []
    for seed in seeds:
        result = grade_namespace(assignment, namespace, findings, "reference", seed=seed)
        problems += full_marks_problems(result, f"reference (seed {seed})")
    return problems


def blank_notebook(assignment: str):
    """What students receive, made from the source by nbgrader's own preprocessors (no release/ needed)."""
    return notebooks.blank_notebook(resolve(assignment).source_notebook())


def check_blank(assignment: str) -> list[str]:
    result = grade_notebook(assignment, blank_notebook(assignment), "blank")
    return [f"blank release: {q.grade_id} scored {q.points}/{q.max_points}"
            for q in result.questions if q.kind == "autograded" and q.points]


def check_mutant(assignment: str, mutant: Mutant) -> list[str]:
    result = grade_notebook(assignment, apply_mutant(reference_notebook(assignment), mutant), mutant.name)
    problems = []
    for q in result.questions:
        if q.kind != "autograded":
            continue
        if q.grade_id == mutant.question and q.points >= q.max_points:
            problems.append(f"mutant {mutant.name} ({mutant.mistake}) kept full marks on {q.grade_id}")
        if q.grade_id != mutant.question and q.points != q.max_points:
            failed = "; ".join(f"{t.name}: {t.message}" for t in q.tests if t.outcome != "passed")
            problems.append(f"mutant {mutant.name} lost points on {q.grade_id}, not its own question "
                            f"{mutant.question}: {failed}")
    return problems
