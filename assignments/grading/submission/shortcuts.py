"""Shortcut check: does an answer use a library object that its question forbids?

A question's contract may say "build it yourself", and its hidden tests compare the answer with a
library oracle (``F.scaled_dot_product_attention``, ``nn.GRUCell``, ...). An answer that simply calls
the oracle passes every test, so the source notebook declares, per question, what an answer must not use
(``notebooks.shortcut_rules``), and this module finds such uses statically, in the grader's process,
before any student code runs:

1. **Scan** every code cell the student controls (answer cells and cells they added) in notebook order,
   as *Run all* would leave the namespace: imports and aliases (``import torch.nn as nn``,
   ``from torch.nn import functional as F``, ``sdpa = F.scaled_dot_product_attention``) become paths,
   top-level functions, classes and assignments become definitions (the last one of a name wins; an
   attribute set on it later, ``MyCell.forward = helper``, is part of it). Locked cells are read for
   their imports only: they are the template's text, the instructor's code.
2. **Resolve** every name and attribute chain inside a definition to a dotted path, through the aliases,
   local imports, ``getattr(F, "name")`` with a constant, ``vars(F)["name"]``, ``F.__dict__["name"]``,
   ``importlib.import_module("...")``, ``__import__`` and star imports; function parameters and local
   variables shadow globals. ``nn.Transformer(...).method`` counts as the class's method.
3. **Follow** the call graph from the definitions a question's answer cell defines (the template's, so
   a student cannot change which names belong to which question) through helpers: definitions the
   student added, or that the same answer cell holds. Another question's answer is not followed (it is
   checked for its own question, so a mistake is reported once), nor is instructor code.
4. **Match** a path against the declared names by object identity (``torch.nn.modules.activation.
   MultiheadAttention`` is ``torch.nn.MultiheadAttention``, and so is another package's re-export of it):
   the student's path is walked from modules already imported in this process, never importing anything
   a submission names. A bare declared name
   is one of the notebook's own definitions and matches by name.

Each hit is a ``Finding`` with code ``shortcut`` whose ``cell`` is the question's grade_id. The rule's
penalty decides its severity: ``flag`` (default) a warning that changes nothing, ``zero`` an error, and
``results.model.apply_penalties`` sets such a question to 0 points; every door calls it after its last
scoring step.

Not seen: names built at run time (``getattr(F, "scaled_" + "dot...")``, ``eval``), methods reached
through an instance kept in a variable (``t = nn.Transformer(); t.generate_square_subsequent_mask``), and
code reached only through an object passed in at run time. The static audit, the hidden tests and a
person reading the code remain.

Why one module of this length: the four steps share one model of a notebook's names (paths, definitions,
shadowing), and each step is a few small functions over it; split apart, every part would import the
others' private structures.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import sys
import types
from dataclasses import dataclass, field
from functools import lru_cache

from assignments import notebooks
from assignments.course import Assignment
from assignments.results.findings import SHORTCUT as CODE
from assignments.results.findings import SHORTCUT_CHECK_FAILED as FAILED_CODE  # a staff note; no score moves
from assignments.results.model import Finding

MAX_CHAIN = 64  # longest attribute chain resolved (no real library path is longer)
MAX_CALL_NESTING = 8  # f(...)(...) levels looked through when resolving a method on a call's result
_MISSING = object()


# --- what a definition uses ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Use:
    path: str  # "torch.nn.functional.scaled_dot_product_attention", or a notebook name ("helper")
    written: str  # the expression as the student wrote it (shortened)
    cell: str  # "cell scaled_dot_product" or "added cell 7"
    line: int  # line within that cell


@dataclass
class Definition:
    name: str
    cell: str
    trusted: bool  # from a locked cell: the template's text
    parts: list = field(default_factory=list)  # (ast node, cell label) evaluated for this name
    uses: list[Use] = field(default_factory=list)


@dataclass(frozen=True)
class _Scope:
    kind: str  # "function" | "class" | "comprehension"
    names: dict  # local name -> import path, or None for an ordinary local variable


def _written(node) -> str:
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError, AttributeError):
        return "?"
    return text if len(text) <= 70 else text[:67] + "..."


def _const_str(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _bound_names(target) -> list[str]:
    """Names a target binds: ``a``, ``a, (b, *c)``; attribute and subscript targets bind none."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _bound_names(element)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return []


def _target_root(target) -> str | None:
    """``MyCell.forward`` or ``MyCell.x[0]`` -> ``MyCell``: the definition an assignment changes."""
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def _import_bindings(node) -> dict[str, str | None]:
    """Names an import statement binds -> the dotted path each stands for (None: unknown, relative)."""
    bound = {}
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                bound[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                bound[top] = top
    elif isinstance(node, ast.ImportFrom):
        for alias in node.names:
            if alias.name != "*":
                path = f"{node.module}.{alias.name}" if node.module and not node.level else None
                bound[alias.asname or alias.name] = path
    return bound


def _local_names(node) -> dict[str, str | None]:
    """Names bound inside a function or lambda (its own scope, nested scopes excluded)."""
    names: dict[str, str | None] = {}
    args = node.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None:
            names[arg.arg] = None
    declared_global = set()
    stack = list(node.body) if isinstance(node.body, list) else [node.body]
    while stack:
        item = stack.pop()
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.setdefault(item.name, None)
            stack.extend(item.decorator_list)
            continue
        if isinstance(item, ast.Lambda):
            continue
        if isinstance(item, (ast.Import, ast.ImportFrom)):
            names.update(_import_bindings(item))
        elif isinstance(item, (ast.Global, ast.Nonlocal)):
            declared_global.update(item.names)
        elif isinstance(item, ast.Name) and not isinstance(item.ctx, ast.Load):
            names.setdefault(item.id, None)
        elif isinstance(item, ast.ExceptHandler) and item.name:
            names.setdefault(item.name, None)
        stack.extend(ast.iter_child_nodes(item))
    for name in declared_global:
        names.pop(name, None)
    return names


def _class_names(node: ast.ClassDef) -> dict[str, str | None]:
    """Names bound directly in a class body (methods do not see them)."""
    names: dict[str, str | None] = {}
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[statement.name] = None
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.update(_import_bindings(statement))
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names.update({name: None for target in targets for name in _bound_names(target)})
    return names


def _comprehension_names(node) -> dict[str, str | None]:
    return {name: None for generator in node.generators for name in _bound_names(generator.target)}


class Namespace:
    """The module namespace the student's cells build, and what each definition uses."""

    def __init__(self):
        self.aliases: dict[str, str] = {}  # global name -> dotted path (imports, `F = torch.nn...`)
        self.definitions: dict[str, Definition] = {}
        self.star: list[str] = []  # star-imported modules, in order

    # -- pass 1: bind the cells' top-level statements in order

    def _forget(self, name: str) -> None:
        self.aliases.pop(name, None)
        self.definitions.pop(name, None)

    def _define(self, name: str, part, cell: str, trusted: bool) -> None:
        self.aliases.pop(name, None)
        self.definitions[name] = Definition(name, cell, trusted, [(part, cell)])

    def _extend(self, name: str | None, part, cell: str) -> None:
        if name in self.definitions:
            self.definitions[name].parts.append((part, cell))

    def bind(self, statement, cell: str, trusted: bool) -> None:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            if isinstance(statement, ast.ImportFrom) and any(a.name == "*" for a in statement.names):
                if statement.module and not statement.level:
                    self.star.append(statement.module)
            for name, path in _import_bindings(statement).items():
                self._forget(name)
                if path:
                    self.aliases[name] = path
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._define(statement.name, statement, cell, trusted)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            if statement.value is None:
                return
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            path = self.path(statement.value, ())
            for target in targets:
                names = _bound_names(target)
                for name in names:
                    self._define(name, statement.value, cell, trusted)
                    if path and names == [name]:
                        self.aliases[name] = path  # `sdpa = F.scaled_dot_product_attention`
                if not names:
                    self._extend(_target_root(target), statement.value, cell)
        elif isinstance(statement, ast.AugAssign):
            self._extend(_target_root(statement.target), statement.value, cell)
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value  # setattr(MyCell, "forward", helper)
            if (
                self.path(call.func, ()) == "builtins.setattr"
                and len(call.args) == 3
                and isinstance(call.args[0], ast.Name)
            ):
                self._extend(call.args[0].id, call.args[2], cell)
        elif isinstance(statement, ast.Delete):
            for target in statement.targets:
                for name in _bound_names(target):
                    self._forget(name)
        elif isinstance(
            statement,
            (
                ast.If,
                ast.For,
                ast.AsyncFor,
                ast.While,
                ast.With,
                ast.AsyncWith,
                ast.Try,
                getattr(ast, "TryStar", ast.Try),
            ),
        ):
            if isinstance(statement, (ast.For, ast.AsyncFor)):
                for name in _bound_names(statement.target):
                    self._define(name, statement.iter, cell, trusted)
            if isinstance(statement, (ast.With, ast.AsyncWith)):
                for item in statement.items:
                    for name in _bound_names(item.optional_vars) if item.optional_vars else []:
                        self._define(name, item.context_expr, cell, trusted)
            blocks = [statement.body, getattr(statement, "orelse", []), getattr(statement, "finalbody", [])]
            blocks += [handler.body for handler in getattr(statement, "handlers", [])]
            for block in blocks:
                for inner in block:
                    self.bind(inner, cell, trusted)

    # -- resolving names and attribute chains

    def name(self, identifier: str, scopes: tuple) -> str | None:
        for depth, scope in enumerate(reversed(scopes)):
            if scope.kind == "class" and depth:
                continue  # a method does not see its class body's names
            if identifier in scope.names:
                return scope.names[identifier]
        if identifier in self.aliases:
            return self.aliases[identifier]
        if identifier in self.definitions:
            return identifier
        for module in reversed(self.star):
            candidate = f"{module}.{identifier}"
            if lookup(candidate) is not _MISSING:
                return candidate
        if hasattr(builtins, identifier):
            return f"builtins.{identifier}"
        return None

    def _special_call(self, node: ast.Call, scopes: tuple, nesting: int):
        """('attr', base node, name) for getattr(X, "name"); ('module', path) for an import by constant."""
        func = self.path(node.func, scopes, nesting + 1) if nesting < MAX_CALL_NESTING else None
        if func == "builtins.getattr" and len(node.args) >= 2 and _const_str(node.args[1]) is not None:
            return ("attr", node.args[0], _const_str(node.args[1]))
        if func == "importlib.import_module" and node.args and _const_str(node.args[0]):
            return ("module", _const_str(node.args[0]))
        if func == "builtins.__import__" and node.args and _const_str(node.args[0]):
            wanted = _const_str(node.args[0])
            fromlist = len(node.args) >= 4 or any(k.arg == "fromlist" for k in node.keywords)
            return ("module", wanted if fromlist else wanted.split(".")[0])
        return None

    def _dict_base(self, node, scopes: tuple, nesting: int):
        """X for ``vars(X)`` or ``X.__dict__``; None otherwise."""
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            return node.value
        if (
            isinstance(node, ast.Call)
            and len(node.args) == 1
            and nesting < MAX_CALL_NESTING
            and self.path(node.func, scopes, nesting + 1) == "builtins.vars"
        ):
            return node.args[0]
        return None

    def path(self, node, scopes: tuple, nesting: int = 0) -> str | None:
        """The dotted path an expression stands for, or None (a local value, a computed object)."""
        suffix: list[str] = []
        for _ in range(MAX_CHAIN):
            if isinstance(node, ast.Name):
                base = self.name(node.id, scopes)
                break
            if isinstance(node, ast.Attribute):
                suffix.append(node.attr)
                node = node.value
                continue
            if isinstance(node, ast.Subscript) and _const_str(node.slice) is not None:
                inner = self._dict_base(node.value, scopes, nesting)
                if inner is None:
                    return None
                suffix.append(_const_str(node.slice))
                node = inner
                continue
            if isinstance(node, ast.Call):
                special = self._special_call(node, scopes, nesting)
                if special and special[0] == "attr":
                    suffix.append(special[2])
                    node = special[1]
                    continue
                if special:
                    base = special[1]
                    break
                if not suffix:
                    return None  # a call's result is not a path ...
                node = node.func  # ... but `nn.Transformer(...).method` is the class's method
                continue
            return None
        else:
            return None
        if base is None:
            return None
        return ".".join([base, *reversed(suffix)])

    # -- pass 2: what each definition uses

    def collect(self, definition: Definition) -> None:
        for part, cell in definition.parts:
            definition.uses += self._uses(part, cell)

    def _uses(self, root, cell: str) -> list[Use]:
        found: list[Use] = []
        stack = [(root, ())]  # iterative, so a hostile nesting depth cannot exhaust the stack
        while stack:
            node, scopes = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                outer = [
                    *getattr(node, "decorator_list", []),
                    *node.args.defaults,
                    *[d for d in node.args.kw_defaults if d is not None],
                ]
                stack += [(child, scopes) for child in outer]  # annotations are not uses
                inner = (*scopes, _Scope("function", _local_names(node)))
                body = node.body if isinstance(node.body, list) else [node.body]
                stack += [(child, inner) for child in body]
                continue
            if isinstance(node, ast.ClassDef):
                stack += [
                    (child, scopes) for child in [*node.decorator_list, *node.bases, *[k.value for k in node.keywords]]
                ]
                inner = (*scopes, _Scope("class", _class_names(node)))
                stack += [(child, inner) for child in node.body]
                continue
            if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                inner = (*scopes, _Scope("comprehension", _comprehension_names(node)))
                stack += [(child, inner) for child in ast.iter_child_nodes(node)]
                continue
            if isinstance(node, ast.AnnAssign):
                stack += [(child, scopes) for child in (node.target, node.value) if child is not None]
                continue
            if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) and not isinstance(
                getattr(node, "ctx", ast.Load()), (ast.Store, ast.Del)
            ):
                path = self.path(node, scopes)
                if path:
                    found.append(Use(path, _written(node), cell, getattr(node, "lineno", 0)))
            stack += [(child, scopes) for child in ast.iter_child_nodes(node)]
        found.sort(key=lambda use: use.line)
        return found


# --- matching paths with declared names ------------------------------------------------------------------


@lru_cache(maxsize=256)
def declared_object(name: str):
    """The object a declared dotted name stands for (the instructor's text: importing it is fine), or
    ``_MISSING`` for a bare notebook name or a name that does not resolve (``course hygiene`` says so)."""
    parts = name.split(".")
    if len(parts) < 2:
        return _MISSING
    for split in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for attr in parts[split:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return _MISSING
        return obj
    return _MISSING


def declared_resolves(name: str) -> bool:
    """A declared dotted name names an importable object (``course hygiene`` checks every one)."""
    return declared_object(name) is not _MISSING


@lru_cache(maxsize=4096)
def lookup(path: str):
    """The object a student's dotted path reaches from modules this process has ALREADY imported (nothing
    a submission names is ever imported here), or ``_MISSING``. A module's attributes are read from its
    ``__dict__``: a lazy module's ``__getattr__`` (transformers has them) would import what the path names."""
    parts = path.split(".")
    obj = sys.modules.get(parts[0], _MISSING)
    if obj is _MISSING:
        return _MISSING
    for index in range(1, len(parts)):
        module = sys.modules.get(".".join(parts[: index + 1]))
        if module is not None:
            obj = module
            continue
        try:
            if isinstance(obj, types.ModuleType):
                obj = vars(obj).get(parts[index], _MISSING)
            else:
                obj = getattr(obj, parts[index])
        except Exception:  # noqa: BLE001 - any failure means "not this object"
            return _MISSING
        if obj is _MISSING:
            return _MISSING
    return obj


def matches(path: str, declared: str) -> bool:
    """``path`` (from the student's code) is the declared object, under whatever alias or re-export, from
    this package or another (``safetensors.torch.torch.nn.functional`` is ``torch.nn.functional``)."""
    if path == declared:
        return True
    target = declared_object(declared)
    return target is not _MISSING and lookup(path) is target


# --- scanning a notebook, checking its questions ----------------------------------------------------------


@lru_cache(maxsize=1)
def _ipython_transformer():
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager()


def _parse(source: str):
    """The cell as the kernel runs it, or None if it cannot run (then it defines nothing). Plain Python
    runs as it is; only text that is not (magics, ``!cmd``) goes through IPython's transform, which costs
    about 5 ms a cell."""
    for attempt in range(2):
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            if attempt:
                return None
        try:
            source = _ipython_transformer().transform_cell(source)
        except Exception:  # noqa: BLE001 - text IPython cannot transform does not run either
            return None
    return None


def scan(nb) -> Namespace:
    """Bind every code cell but the autograded test cells, in order; collect the uses of every
    definition the student wrote."""
    namespace = Namespace()
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code" or notebooks.is_autograded_test(cell):
            continue
        gid = notebooks.grade_id(cell)
        label = f"cell {gid}" if gid else f"added cell {index + 1}"
        tree = _parse(notebooks.cell_text(cell))
        for statement in tree.body if tree else []:
            namespace.bind(statement, label, notebooks.is_locked(cell))
    for definition in namespace.definitions.values():
        if not definition.trusted:
            namespace.collect(definition)
    return namespace


@dataclass
class Hit:
    declared: str
    use: Use
    chain: tuple[str, ...]  # answer name, then the helpers through which it was reached
    count: int = 1


def question_hits(namespace: Namespace, rule: notebooks.ShortcutRule, owners: dict[str, str]) -> list[Hit]:
    """Uses of a declared name reachable from the question's answer definitions, one Hit per name."""
    roots = sorted(name for name, question in owners.items() if question == rule.question)
    queue = [(name, (name,)) for name in roots]
    seen: set[str] = set()
    hits: dict[str, Hit] = {}
    while queue:
        name, chain = queue.pop(0)
        definition = namespace.definitions.get(name)
        if name in seen or definition is None or definition.trusted:
            continue
        seen.add(name)
        for use in definition.uses:
            for declared in rule.forbidden:
                if matches(use.path, declared):
                    if declared in hits:
                        hits[declared].count += 1
                    else:
                        hits[declared] = Hit(declared, use, chain)
            callee = use.path
            if (
                callee in namespace.definitions
                and callee not in seen
                and owners.get(callee, rule.question) == rule.question
            ):
                queue.append((callee, (*chain, callee)))
    return [hits[name] for name in rule.forbidden if name in hits]


def describe(hit: Hit, rule: notebooks.ShortcutRule) -> str:
    via = f", reached through {' -> '.join(f'`{n}`' for n in hit.chain[1:])}" if len(hit.chain) > 1 else ""
    more = f" and {hit.count - 1} more place(s)" if hit.count > 1 else ""
    consequence = (
        "this question scores 0" if rule.penalty == "zero" else "flagged for the instructor; the score is unchanged"
    )
    return (
        f"{rule.question}: `{hit.chain[0]}` uses {hit.declared} (written `{hit.use.written}`, "
        f"{hit.use.cell} line {hit.use.line}{more}{via}), which this question does not allow: the "
        f"answer must do that work itself; {consequence}"
    )


def check(nb, owners: dict[str, str], rules: dict[str, notebooks.ShortcutRule]) -> list[Finding]:
    """One ``shortcut`` finding per question and declared name an answer uses. Never raises."""
    if not rules:
        return []
    try:
        for rule in rules.values():  # import what the rules name first: star imports resolve through it
            for declared in rule.forbidden:
                declared_object(declared)
        namespace = scan(nb)
        findings = []
        for question, rule in rules.items():
            for hit in question_hits(namespace, rule, owners):
                severity = "error" if rule.penalty == "zero" else "warning"
                findings.append(Finding(CODE, describe(hit, rule), severity, question))
        return findings
    except Exception as error:  # noqa: BLE001 - a static check must never stop a grading
        return [
            Finding(
                FAILED_CODE,
                f"the shortcut check could not read this notebook ({type(error).__name__}); nothing was flagged",
                "warning",
            )
        ]


def check_restored(assignment: Assignment, restored, template, rules=None) -> list[Finding]:
    """``check`` with the assignment's rules (``Assignment.shortcut_rules``) and the template's answer names.

    ``restored`` is the notebook as the standalone door rebuilt it (``restore.restore``)."""
    from assignments.grading.testkit.handle import answered_by

    if rules is None:
        try:
            rules = assignment.shortcut_rules
        except (OSError, ValueError):
            return []  # no source notebook (a toy assignment): nothing is declared
    return check(restored, answered_by(template), rules)
