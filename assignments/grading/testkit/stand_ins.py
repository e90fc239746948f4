"""Stand-ins: correct definitions of earlier questions that a hidden test may swap in for one call.

They are answer keys, so a call receives only the definitions it names and what those need
(``extract_definitions``); the handle decides when a call may have them (``handle.StudentHandle``).
"""

from __future__ import annotations

import ast

from assignments.course import resolve


def stand_in_source(assignment) -> str:
    path = resolve(assignment).stand_ins_path
    return path.read_text() if path.exists() else ""


def defined_names(node) -> set[str]:
    """The names one top-level statement binds (a def, a class, an assignment)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def extract_definitions(source: str, names) -> str:
    """Only what defining ``names`` needs from ``source``: its imports, the requested definitions and
    the module-level definitions they use (transitively), in file order. The rest of the answer key
    stays in the grader. KeyError for a name ``source`` does not define at module level."""
    body = ast.parse(source).body
    defines = {}
    for index, node in enumerate(body):
        for name in defined_names(node):
            defines.setdefault(name, index)
    unknown = [name for name in names if name not in defines]
    if unknown:
        raise KeyError(f"no stand-in named {unknown}")
    keep, todo = set(), [defines[name] for name in names]
    while todo:
        index = todo.pop()
        if index in keep:
            continue
        keep.add(index)
        used = {n.id for n in ast.walk(body[index]) if isinstance(n, ast.Name)}
        todo += [defines[name] for name in used if name in defines]
    lines = source.splitlines(keepends=True)
    parts = []
    for index, node in enumerate(body):
        if index in keep or isinstance(node, (ast.Import, ast.ImportFrom)):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            parts.append("".join(lines[first - 1 : node.end_lineno]))
    return "\n".join(parts)
