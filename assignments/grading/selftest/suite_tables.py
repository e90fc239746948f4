"""The tables a hidden test module declares about itself, read statically (``ast``), so that no suite is
imported to check them: its behaviour-map rows (``behaviour_rows``) and its contract parameters
(``parameter_rows``) live beside the tests they describe (autograder/README.md, Behaviour maps)."""

from __future__ import annotations

import ast

from assignments.course import Assignment


def suite_texts(assignment: Assignment) -> dict[str, str]:
    """File name -> text of each hidden test module of ``assignment``."""
    folder = assignment.suite_dir
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(folder.glob("test_*.py"))}


def table_rows(texts: dict[str, str], table: str, width: int, longest: int = 0) -> tuple[list[tuple], bool]:
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
