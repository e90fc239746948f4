"""The benchmark scripts call the package as it is: every call of a package function or class in
benchmarks/*.py binds to its real signature (the number of positional arguments, the keywords' names).

The benchmarks run on other machines and by hand (a GPU host, a class of 800), not in `make test`, so a
renamed parameter reached them only when someone ran them: gpu_grading.py's nbgrader path still passed
`root=` to `autograde_repaired` after #49 gave it a run folder, and failed on the GPU host. This reads each
script's syntax tree, resolves the names it imported from `assignments`, and binds each call's shape.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from assignments.course import REPO

SCRIPTS = sorted((REPO / "benchmarks").glob("*.py"))


def imported_names(tree: ast.AST) -> dict[str, object]:
    """alias -> the package object it names, for every `import assignments...` and `from assignments... import`
    anywhere in the file (benchmarks import lazily, inside functions)."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "assignments":
            module = importlib.import_module(node.module)
            for alias in node.names:
                target = getattr(module, alias.name, None)
                if target is None:
                    target = importlib.import_module(f"{node.module}.{alias.name}")
                names[alias.asname or alias.name] = target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "assignments" and alias.asname:
                    names[alias.asname] = importlib.import_module(alias.name)
    return names


def callee(func: ast.expr, names: dict[str, object]):
    """The package function or class a call's ``func`` names (``f(...)`` or ``module.f(...)``), or None."""
    if isinstance(func, ast.Name):
        return names.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in names:
        owner = names[func.value.id]
        if inspect.ismodule(owner):
            return getattr(owner, func.attr, None)
    return None


def misfits(script: Path) -> list[str]:
    tree = ast.parse(script.read_text(encoding="utf-8"))
    names = imported_names(tree)
    wrong = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        target = callee(node.func, names)
        if target is None or inspect.ismodule(target) or not callable(target):
            continue
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            continue  # *args or **kwargs: the shape is not known before it runs
        try:
            signature = inspect.signature(target)
        except (TypeError, ValueError):
            continue
        try:
            signature.bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError as error:
            wrong.append(f"line {node.lineno}: {ast.unparse(node.func)}(...): {error}")
    return wrong


def test_the_check_sees_a_call_that_no_longer_fits(tmp_path):
    stale = tmp_path / "stale.py"
    stale.write_text(
        "def run(work):\n"
        "    from assignments.grading.doors.nbgrader import door as nbgrader_door\n"
        "    nbgrader_door.autograde_repaired(None, {}, work, root=work / 'course', progress=False)\n"
    )
    assert [line for line in misfits(stale) if "root" in line], misfits(stale)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_every_call_into_the_package_fits_its_signature(script):
    wrong = misfits(script)
    assert not wrong, f"benchmarks/{script.name} calls the package with arguments it does not take:\n" + "\n".join(
        wrong
    )
