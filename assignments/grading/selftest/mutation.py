"""Mutants and shortcut answers written as changes against the solution, and the comparison of definitions
that they and the stand-ins policy share, and the folders they are read from (``mutant_checks`` grades
the mutants, ``variant_checks`` the variants).

A mutant file (``autograder/<assignment>/mutants/<name>.py``; shortcut answers use the same format) is a
docstring, optionally the imports its mistake needs that the notebook does not already make, and only the
definitions it changes::

    \"\"\"Divides the attention scores by head_dim instead of sqrt(head_dim).

    question: scaled_dot_product_tests
    replaces: scaled_dot_product
    \"\"\"


    def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
        ...

- a top-level function or assignment replaces the definition of the same name in the solution cell of
  ``replaces`` (the answer cell of the source notebook);
- a class lists only the members it changes (methods, class attributes): each replaces the member of the
  same name in the solution cell's class; a member that class lacks (a method a student adds, such as an
  overridden ``train``) is appended to it when the docstring names it on a line ``adds: Class.member``
  (otherwise it is a stale mutant); the class line, docstring and every other member stay the solution's.

The mutated cell is built from the solution cell as it is now, so a mutant never carries a stale copy of
the rest of the cell. Building fails (``MutantError``, naming the mutant and the definition) when the
solution cell no longer defines a replaced name, or when a replaced definition is identical to the
solution's (docstrings, comments and formatting aside): that mutant would test nothing.
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from assignments import notebooks
from assignments.course import Assignment

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign)


class MutantError(ValueError):
    """A mutant (or shortcut answer) that does not apply to the current solution."""


# ---------------------------------------------------------------------------------------- definitions


def _without_docstring(body: list) -> list:
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[1:]
    return body


def normalized(node: ast.AST) -> str:
    """The syntax tree of ``node`` without docstrings, as text: comments and formatting are not in it."""
    node = copy.deepcopy(node)
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            sub.body = _without_docstring(sub.body) or [ast.Pass()]
    return ast.dump(node)


def same_definition(a: ast.AST, b: ast.AST) -> bool:
    return normalized(a) == normalized(b)


def defined_name(node: ast.AST) -> str | None:
    """The name a top-level (or class-level) definition binds: ``f``, ``C``, ``X`` or ``a, b``."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, ast.AnnAssign):
        target = node.target
    else:
        return None
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
        return ", ".join(e.id for e in target.elts)
    return None


def definitions(body: list) -> dict[str, ast.AST]:
    """name -> node for the definitions in ``body`` (the last one wins, as when the code runs)."""
    found = {}
    for node in body:
        name = defined_name(node)
        if name is not None:
            found[name] = node
    return found


# ---------------------------------------------------------------------------------------- splicing


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _span(lines: list[str], node) -> tuple[int, int]:
    """0-based [start, end) of ``node``'s lines, decorators included, extended over the comment lines
    indented deeper than the definition that follow it (nbgrader's ``### END SOLUTION``)."""
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
    end = probe = node.end_lineno
    while probe < len(lines):
        text = lines[probe].strip()
        if text and not (text.startswith("#") and _indent(lines[probe]) > node.col_offset):
            break
        probe += 1
        if text:
            end = probe
    return start, end


def _segment(lines: list[str], node, col: int) -> list[str]:
    """``node``'s lines moved from its own indentation to column ``col``."""
    start, end = _span(lines, node)
    shift = col - node.col_offset
    moved = []
    for line in lines[start:end]:
        if not line.strip():
            moved.append("")
        elif shift >= 0:
            moved.append(" " * shift + line)
        else:
            moved.append(line[min(-shift, _indent(line)) :])
    return moved


def _parse(text: str, label: str) -> list:
    try:
        return ast.parse(text).body
    except SyntaxError as error:
        raise MutantError(f"{label}: does not parse: {error}") from None


def _class_changes(
    change: ast.ClassDef, solution: ast.ClassDef, label: str, adds: frozenset = frozenset()
) -> list[tuple[ast.AST, ast.AST]]:
    header = ("bases", "keywords", "decorator_list")
    if any([ast.dump(n) for n in getattr(change, f)] != [ast.dump(n) for n in getattr(solution, f)] for f in header):
        raise MutantError(
            f"{label}: class {change.name}'s bases or decorators differ from the solution's; a "
            f"mutant class states only the members it changes"
        )
    members = _without_docstring(change.body)
    if not members:
        raise MutantError(f"{label}: class {change.name} changes no member")
    theirs = definitions(solution.body)
    pairs, seen = [], set()
    for member in members:
        name = defined_name(member)
        if name is None:
            raise MutantError(
                f"{label}: class {change.name} may hold only the methods and class attributes it "
                f"changes; line {member.lineno} is a {type(member).__name__}"
            )
        if name not in theirs and f"{change.name}.{name}" in adds:  # a method a student adds: appended
            if name in seen:
                raise MutantError(f"{label}: {change.name}.{name} is given twice")
            seen.add(name)
            pairs.append((member, Appended(solution)))
            continue
        solution_member = _replaced(name, theirs, seen, label, owner=change.name)
        _refuse_no_op(member, solution_member, f"{change.name}.{name}", label)
        pairs.append((member, solution_member))
    return pairs


@dataclass(frozen=True)
class Appended:
    """Where a class member the solution lacks goes: after the last line of the solution's class ``owner``."""

    owner: ast.ClassDef

    @property
    def col_offset(self) -> int:
        return _without_docstring(self.owner.body)[0].col_offset if _without_docstring(self.owner.body) else 4


def _replaced(name: str, theirs: dict, seen: set, label: str, owner: str = "") -> ast.AST:
    """The solution's definition that a change of ``name`` replaces (in class ``owner``, if given);
    MutantError when the change gives the name twice or the solution no longer defines it."""
    if name in seen:
        raise MutantError(f"{label}: {f'{owner}.' if owner else ''}{name} is given twice")
    seen.add(name)
    if name not in theirs:
        scope = f"the solution's class {owner}" if owner else "the solution cell"
        raise MutantError(f"{label}: {scope} no longer defines {name}; update or remove the mutant")
    return theirs[name]


def _refuse_no_op(change: ast.AST, solution: ast.AST, where: str, label: str) -> None:
    if same_definition(change, solution):
        raise MutantError(f"{label}: {where} is identical to the solution's (a no-op change)")


def changed_definitions(change_text: str, solution_text: str, label: str) -> tuple[list, list]:
    """(imports, [(changed node, solution node it replaces)]) of a change against a solution cell, or
    MutantError. Top-level definitions pair with the solution cell's; class members with its class's."""
    module = _parse(change_text, label)
    body = _without_docstring(module)
    adds = frozenset(re.findall(r"[\w.]+", _optional_line(ast.get_docstring(ast.Module(module, [])) or "", "adds")))
    theirs = definitions(_parse(solution_text, f"{label}: the solution cell"))
    imports, pairs, seen = [], [], set()
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
            continue
        name = defined_name(node) if isinstance(node, DEFINITIONS) else None
        if name is None:
            raise MutantError(
                f"{label}: a mutant holds only imports and the definitions it changes "
                f"(functions, classes, assignments); line {node.lineno} is a {type(node).__name__}"
            )
        solution = _replaced(name, theirs, seen, label)
        if isinstance(node, ast.ClassDef) and isinstance(solution, ast.ClassDef):
            pairs += _class_changes(node, solution, label, adds)
            continue
        if type(node) is not type(solution) and not {type(node), type(solution)} <= {ast.Assign, ast.AnnAssign}:
            raise MutantError(
                f"{label}: {name} is a {type(solution).__name__} in the solution cell, not a {type(node).__name__}"
            )
        _refuse_no_op(node, solution, name, label)
        pairs.append((node, solution))
    if not pairs:
        raise MutantError(f"{label}: changes no definition")
    return imports, pairs


def _edit(lines: list[str], change_lines: list[str], new, old) -> tuple[tuple[int, int], list[str]]:
    """(the solution's lines [start, end) to replace, their replacement): an appended member is an empty
    span at the end of its class."""
    if isinstance(old, Appended):
        end = _span(lines, old.owner)[1]
        return (end, end), ["", *_segment(change_lines, new, old.col_offset)]
    return _span(lines, old), _segment(change_lines, new, old.col_offset)


def apply_change(solution_text: str, change_text: str, label: str) -> str:
    """The solution cell with the change's definitions in place of the solution's (see the module doc)."""
    imports, pairs = changed_definitions(change_text, solution_text, label)
    lines, change_lines = solution_text.splitlines(), change_text.splitlines()
    edits = sorted((_edit(lines, change_lines, new, old) for new, old in pairs), key=lambda edit: edit[0], reverse=True)
    for (start, end), replacement in edits:
        lines[start:end] = replacement
    if imports:
        lines = [line for node in imports for line in _segment(change_lines, node, 0)] + [""] + lines
    cell = "\n".join(lines).rstrip("\n") + "\n"
    _parse(cell, f"{label}: the mutated cell")
    return cell


def without_definitions(cell_text: str, names) -> str:
    """``cell_text`` without its top-level definitions of ``names`` (and their trailing solution markers)."""
    lines = cell_text.splitlines()
    found = definitions(ast.parse(cell_text).body)
    for start, end in sorted((_span(lines, found[name]) for name in names), reverse=True):
        del lines[start:end]
    return "\n".join(lines).strip("\n") + "\n"


# ---------------------------------------------------------------------------------------- mutant files


@dataclass(frozen=True)
class Mutant:
    """One mutant or shortcut answer. ``code`` is the whole mutated answer cell ``replaces``, built from the
    current source notebook when first read (MutantError if the change no longer applies)."""

    name: str
    question: str
    replaces: str
    mistake: str
    change: str
    assignment: Assignment | None = None  # whose source notebook ``code`` is built from
    contract: str = ""  # a mutant's ``contract:`` line: the skeleton's rule it breaks (its visible check must fail)
    source: str = ""  # a variant's ``source:`` line: the tutorial whose form it imitates
    hunt: str = ""  # the ``hunt:`` line: the blind bug hunt that wrote it (autograder/README.md, Blind hunts)

    @property
    def label(self) -> str:
        return f"mutant {self.assignment.name}/{self.name}" if self.assignment else f"mutant {self.name}"

    def apply_to(self, solution_text: str) -> str:
        return apply_change(solution_text, self.change, self.label)

    @cached_property
    def code(self) -> str:
        return self.apply_to(solution_cell(self.assignment.source_notebook(), self))


def solution_cell(nb, mutant: Mutant) -> str:
    targets = [c for c in nb.cells if notebooks.grade_id(c) == mutant.replaces and notebooks.is_answer(c)]
    if len(targets) != 1:
        raise MutantError(f"{mutant.label}: no single answer cell with grade_id {mutant.replaces!r}")
    return targets[0].source


def _field(doc: str, key: str, path: Path) -> str:
    match = re.search(rf"^\s*{key}:\s*(\S+)\s*$", doc, re.MULTILINE)
    if not match:
        raise MutantError(f"{path}: the docstring must have a line '{key}: <grade_id>'")
    return match.group(1)


def _optional_line(doc: str, key: str) -> str:
    """The free text of an optional ``key: ...`` docstring line ("" when absent)."""
    match = re.search(rf"^\s*{key}:\s*(.+?)\s*$", doc, re.MULTILINE)
    return match.group(1) if match else ""


def load_mutant(path: Path, assignment: Assignment | None = None) -> Mutant:
    """A mutant, shortcut answer or variant file (variants: the first paragraph says how the correct answer
    differs from the solution)."""
    change = path.read_text()
    doc = ast.get_docstring(ast.parse(change)) or ""
    mistake = doc.split("\n\n")[0].strip()
    if not mistake:
        raise MutantError(f"{path}: the docstring must start with the mistake it makes")
    return Mutant(
        path.stem,
        _field(doc, "question", path),
        _field(doc, "replaces", path),
        mistake,
        change,
        assignment,
        _optional_line(doc, "contract"),
        _optional_line(doc, "source"),
        _optional_line(doc, "hunt"),
    )


def load_folder(folder: Path, assignment: Assignment) -> list[Mutant]:
    """Every ``*.py`` of ``folder`` but ``_*.py`` (none when the folder does not exist)."""
    return [load_mutant(p, assignment) for p in sorted(folder.glob("*.py")) if not p.name.startswith("_")]


def mutants(assignment: Assignment) -> list[Mutant]:
    """``autograder/<assignment>/mutants/*.py``: one known mistake each."""
    return load_folder(assignment.mutants_dir, assignment)


def shortcut_answers(assignment: Assignment) -> list[Mutant]:
    """``autograder/<assignment>/shortcuts/*.py``: answers, in the mutants' format, that pass the hidden
    tests by using a library call their question forbids (the shortcut check must flag each on its
    ``question``; they are not mutants: they keep full marks unless the question's penalty says zero)."""
    return load_folder(assignment.shortcuts_dir, assignment)


def variants(assignment: Assignment) -> list[Mutant]:
    """``autograder/<assignment>/variants/*.py``: correct answers written differently, in the mutants' format."""
    return load_folder(assignment.variants_dir, assignment)
