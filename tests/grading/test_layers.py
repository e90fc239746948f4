"""The grading engine's layers (issue #27): which folder of ``assignments/grading/`` may import which.

A submission's path runs down submission -> sandbox -> testkit -> doors, with selftest above them all:
- testkit (what hidden suites import) imports nothing from submission, sandbox, doors or selftest;
- submission and sandbox each import nothing from the other, from doors or from selftest;
- doors import nothing from selftest;
- ``assignments/results/`` (the records every door returns) imports nothing from ``assignments.grading``;
- no import cycle runs between the folders;
- and none between any two modules of ``assignments/`` (issue #36), the packages an import runs counted.

Every module is read with ``ast``, so imports inside functions (the lazy ones) and relative imports count
as much as those at the top of a file; nothing is imported to check it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from assignments.course import REPO

PACKAGE = REPO / "assignments"
GRADING = "assignments.grading"
FOLDERS = ["testkit", "submission", "sandbox", "doors", "selftest"]
# What each folder must not import (any module of it, its package's public face included).
FORBIDDEN = {
    "testkit": {"submission", "sandbox", "doors", "selftest"},
    "submission": {"sandbox", "doors", "selftest"},
    "sandbox": {"submission", "doors", "selftest"},
    "doors": {"selftest"},
    "selftest": set(),
}
# Modules at grading/'s top that belong to a folder: the shim source notebooks import is the nbgrader door.
ALIASES = {"door": "doors"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(folder: Path) -> dict[str, Path]:
    return {module_name(path): path for path in sorted(folder.rglob("*.py"))}


def imports(path: Path, name: str | None = None) -> list[tuple[str, int]]:
    """(module imported, line) for every import in the file, at any depth; ``from X import Y`` gives both X
    and X.Y, since Y may be a module (``from assignments.grading.doors import batch``). ``name``: the
    module's dotted name, where its path does not say it."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            found.append((source, node.lineno))
            found += [(f"{source}.{alias.name}", node.lineno) for alias in node.names if alias.name != "*"]
    return found


def folder_of(module: str) -> str | None:
    """The grading folder a module belongs to (``doors`` for ``assignments.grading.doors.nbgrader.cli``),
    its own name for a module at grading/'s top (``environment``), None outside the engine."""
    if not module.startswith(GRADING + "."):
        return None
    first = module[len(GRADING) + 1 :].split(".")[0]
    return ALIASES.get(first, first)


def edges() -> list[tuple[str, str, str, str, int]]:
    """(from folder, to folder, module, module imported, line) for every import between two of grading's
    folders or top-level modules."""
    found = []
    for name, path in modules(PACKAGE / "grading").items():
        here = folder_of(name)
        for target, line in imports(path):
            there = folder_of(target)
            if here and there and here != there:
                found.append((here, there, name, target, line))
    return found


def once(wrong: list[tuple[str, int, str]]) -> str:
    """One line per import statement (``from X.Y import Z`` is both X.Y and X.Y.Z), given (module, line,
    message) for each."""
    seen = {}
    for module, line, message in wrong:
        seen.setdefault((module, line), message)
    return "\n".join(seen.values())


def test_every_folder_of_the_engine_has_its_rule():
    on_disk = {p.name for p in (PACKAGE / "grading").iterdir() if (p / "__init__.py").is_file()}
    assert on_disk == set(FOLDERS), f"folders without a rule here: {sorted(on_disk - set(FOLDERS))}"


def test_the_reader_sees_lazy_and_relative_imports(tmp_path):
    """Guards the checks below against passing because nothing was read."""
    module = tmp_path / "module.py"
    module.write_text(
        "import json\n"
        "from . import errors\n"
        "from ..sandbox.limits import Limits\n"
        "def later():\n"
        "    if True:\n"
        "        from assignments.grading.doors import batch\n"
        "        import assignments.grading.selftest.checks as checks\n"
    )
    found = imports(module, "assignments.grading.testkit.module")
    assert found == [
        ("json", 1),
        ("assignments.grading.testkit", 2),
        ("assignments.grading.testkit.errors", 2),
        ("assignments.grading.sandbox.limits", 3),
        ("assignments.grading.sandbox.limits.Limits", 3),
        ("assignments.grading.doors", 6),
        ("assignments.grading.doors.batch", 6),
        ("assignments.grading.selftest.checks", 7),
    ]
    assert [folder_of(m) for m, _ in found] == [
        None,
        "testkit",
        "testkit",
        "sandbox",
        "sandbox",
        "doors",
        "doors",
        "selftest",
    ]
    assert folder_of("assignments.grading.door") == "doors" and folder_of("assignments.grading") is None
    # ``from ..course import``, wherever the formatter puts it
    assert "assignments.course" in {name for name, _ in imports(PACKAGE / "exports" / "text.py")}
    assert edges(), "no import between grading's folders found at all"


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_folder_imports_nothing_from_the_layers_it_must_not_know(folder):
    wrong = [
        (module, line, f"{module} imports {target} (line {line}): {folder} must not import {there}")
        for here, there, module, target, line in edges()
        if here == folder and there in FORBIDDEN[folder]
    ]
    assert not wrong, once(wrong)


def test_results_import_nothing_from_the_grading_engine():
    wrong = [
        (name, line, f"{name} imports {target} (line {line}): results must not import {GRADING}")
        for name, path in modules(PACKAGE / "results").items()
        for target, line in imports(path)
        if target == GRADING or target.startswith(GRADING + ".")
    ]
    assert not wrong, once(wrong)


def test_no_import_cycle_between_the_folders():
    graph: dict[str, set[str]] = {}
    for here, there, *_ in edges():
        graph.setdefault(here, set()).add(there)

    def reaches(start: str, goal: str) -> list[str] | None:
        """A path of folders from start to goal, or None."""
        seen, stack = set(), [[start]]
        while stack:
            path = stack.pop()
            for following in sorted(graph.get(path[-1], ())):
                if following == goal:
                    return path + [following]
                if following not in seen:
                    seen.add(following)
                    stack.append(path + [following])
        return None

    def rotated(cycle: list[str]) -> tuple[str, ...]:
        """The cycle starting at its first folder in sorted order, so each is named once."""
        ring = cycle[:-1]
        start = ring.index(min(ring))
        return tuple(ring[start:] + ring[:start] + [ring[start]])

    cycles = sorted({rotated(cycle) for folder in graph if (cycle := reaches(folder, folder))})
    example = {}
    for here, there, module, target, line in edges():
        example.setdefault((here, there), f"{module} imports {target} (line {line})")
    lines = [
        " -> ".join(cycle) + "".join(f"\n    {a} -> {b}: {example[a, b]}" for a, b in zip(cycle, cycle[1:]))
        for cycle in cycles
    ]
    assert not cycles, "import cycles between grading's folders:\n" + "\n".join(lines)


# The whole package, module by module (issue #36): no import cycle anywhere in ``assignments/``.


def module_imports(
    path: Path, known: dict[str, Path], name: str | None = None, faces: dict[str, dict[str, str]] | None = None
) -> dict[str, int]:
    """The package's modules this file's imports run (module -> first line), at any depth.

    ``from X import Y`` runs X.Y where Y is a module, the module X's lazy public face names for Y (``faces``:
    package -> name -> module), else X (whose ``__init__`` holds Y); importing a module also runs every
    package above it, except the packages above this file (they are already running when it runs, so they
    are no import of its own). Modules outside ``known`` are left out."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    own = {".".join(name.split(".")[:depth]) for depth in range(1, name.count(".") + 1)}
    found: dict[str, int] = {}

    def add(module: str, line: int) -> None:
        parts = module.split(".")
        for depth in range(1, len(parts)):
            above = ".".join(parts[:depth])
            if above in known and above not in own:
                found.setdefault(above, line)
        if module in known and module != name:
            found.setdefault(module, line)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            face = (faces or {}).get(source, {})
            submodules = [f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in known]
            submodules += [f"{source}.{face[alias.name]}" for alias in node.names if alias.name in face]
            if len(submodules) < len(node.names):  # a name its __init__ holds, not a module
                add(source, node.lineno)
            for module in submodules:
                add(module, node.lineno)
    return found


def public_faces(known: dict[str, Path]) -> dict[str, dict[str, str]]:
    """package -> {public name: module} for each package whose ``__init__`` is a lazy public face
    (``PUBLIC``, read with ``public_names``): ``from package import name`` imports that module on first use."""
    faces = {}
    for name, path in known.items():
        if path.name != "__init__.py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["PUBLIC"]:
                # The mapping is a dict display with ``**dict.fromkeys(...)``: evaluated with nothing but dict.
                faces[name] = eval(
                    compile(ast.Expression(node.value), str(path), "eval"), {"__builtins__": {}, "dict": dict}
                )
    return faces


def import_graph() -> dict[str, dict[str, int]]:
    known = modules(PACKAGE)
    faces = public_faces(known)
    return {name: module_imports(path, known, faces=faces) for name, path in known.items()}


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The groups of modules that import one another, round or through others (strongly connected
    components of more than one module, Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for following in graph.get(module, ()):
            if following not in index:
                visit(following)
                low[module] = min(low[module], low[following])
            elif following in stack:
                low[module] = min(low[module], index[following])
        if low[module] == index[module]:
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def test_the_module_reader_follows_python_imports(tmp_path):
    """Guards the cycle check below against passing because an import was not seen."""
    known = dict.fromkeys(
        [
            "assignments",
            "assignments.course",
            "assignments.grading",
            "assignments.grading.submission",
            "assignments.grading.submission.load",
            "assignments.release",
            "assignments.release.claims",
            "assignments.release.pipeline",
        ]
    )
    module = tmp_path / "pipeline.py"
    module.write_text(
        "from . import claims\n"  # a module: claims, not the package above this file
        "from ..course import REPO\n"
        "def later():\n"
        "    from assignments.grading.submission.load import default_template\n"
        "    from assignments.release import release\n"  # a name the package's __init__ holds
    )
    assert module_imports(module, known, "assignments.release.pipeline") == {
        "assignments.release.claims": 1,
        "assignments.course": 2,
        "assignments.grading": 4,
        "assignments.grading.submission": 4,  # its __init__ runs before load does
        "assignments.grading.submission.load": 4,
        "assignments.release": 5,
    }
    # A name of a lazy public face: the module that holds it runs when the name is first read.
    faces = {"assignments.grading.submission": {"default_template": "load"}}
    lazy = tmp_path / "lazy.py"
    lazy.write_text("from assignments.grading.submission import default_template\n")
    assert module_imports(lazy, known, "assignments.release.lazy", faces)["assignments.grading.submission.load"] == 1
    assert public_faces(modules(PACKAGE))["assignments.grading.submission"]["prepare"] == "preparation"
    assert cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [["a", "b", "c"]]
    assert len(import_graph()) > 100 and any(import_graph().values()), "the package's modules were not read"


def test_no_import_cycle_between_the_modules_of_the_package():
    graph = import_graph()
    lines = []
    for group in cycles(graph):
        lines.append(" <-> ".join(group))
        lines += [
            f"    {module} imports {target} (line {line})"
            for module in group
            for target, line in sorted(graph[module].items())
            if target in group
        ]
    assert not lines, "modules of assignments/ that import one another (break each cycle):\n" + "\n".join(lines)
