"""A static audit of the student's cells for what an instructor may want to know about (leaving the
kernel, monkeypatching torch, builtins or pytest, reaching for grader files, defining grader names). It
decides nothing: the sandbox is what makes these harmless."""

from __future__ import annotations

import ast

from assignments import notebooks
from assignments.results.model import Finding

GRADER_MODULES = {"pytest", "_pytest", "assignments", "autograder", "nbgrader", "pluggy"}
GRADER_NAMES = {"hidden_tests", "run_suite", "score_questions", "grade_submission", "_course_grader_runtime"}
PATCHED_MODULES = {
    "torch",
    "builtins",
    "__builtins__",
    "pytest",
    "sys",
    "os",
    "numpy",
    "np",
    "F",
    "nn",
    "math",
    "random",
}
EXIT_CALLS = {
    "os._exit",
    "sys.exit",
    "exit",
    "quit",
    "os.kill",
    "os.abort",
    "os.killpg",
    "signal.signal",
    "os.fork",
    "ctypes.CDLL",
}
MAX_AUDITED_CHARS = 1_000_000
GRADER_PATHS = ("autograder", "source/", "solutions", "grades", "/root", "/home/", "/etc/", "/proc/", "../")


def _dotted(node) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def audit_source(source: str) -> list[str]:
    """Notes about one student cell: what it does that an honest answer has no reason to do."""
    if len(source) > MAX_AUDITED_CHARS:
        return [f"is {len(source)} characters long; not audited"]
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    except (RecursionError, MemoryError):  # deeply nested expressions: the student's, not a grader error
        return ["is nested too deeply to audit"]
    try:
        return _notes(tree)
    except RecursionError:
        return ["is nested too deeply to audit"]


def _notes(tree) -> list[str]:
    notes = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            notes += [f"imports {n}" for n in names if n.split(".")[0] in GRADER_MODULES]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in GRADER_NAMES:
            notes.append(f"defines {node.name}")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = _dotted(target) if isinstance(target, ast.Attribute) else ""
                if name and name.split(".")[0] in PATCHED_MODULES and not name.startswith("torch.backends."):
                    notes.append(f"replaces {name}")
                elif isinstance(target, ast.Name) and target.id in GRADER_NAMES:
                    notes.append(f"defines {target.id}")
                elif isinstance(target, ast.Subscript) and _dotted(target.value) in ("sys.modules", "__builtins__"):
                    notes.append(f"replaces an entry of {_dotted(target.value)}")
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name in EXIT_CALLS:
                notes.append(f"calls {name}")
            elif (
                name in ("setattr", "delattr") and node.args and _dotted(node.args[0]).split(".")[0] in PATCHED_MODULES
            ):
                notes.append(f"calls {name} on {_dotted(node.args[0])}")
            for arg in node.args[:1]:
                if (
                    isinstance(arg, ast.Constant)
                    and isinstance(arg.value, str)
                    and name.split(".")[-1] in ("open", "Path", "listdir", "read_text", "scandir", "walk", "glob")
                    and any(p in arg.value for p in GRADER_PATHS)
                ):
                    notes.append(f"opens {arg.value[:80]!r}")
    seen, unique = set(), []
    for note in notes:
        if note not in seen:
            seen.add(note)
            unique.append(note)
    return unique


def audit(restored) -> list[Finding]:
    """One ``suspicious-code`` finding per student cell with notes (answer cells and added cells)."""
    findings = []
    for index, cell in enumerate(restored.cells):
        if cell.get("cell_type") != "code" or notebooks.is_locked(cell):
            continue
        notes = audit_source(notebooks.cell_text(cell))
        if notes:
            label = notebooks.grade_id(cell) or f"added cell {index + 1}"
            findings.append(
                Finding(
                    "suspicious-code",
                    f"cell {label}: {'; '.join(notes[:6])} (this has no effect on the score; "
                    "an instructor may look at it)",
                    "warning",
                    label,
                )
            )
    return findings
