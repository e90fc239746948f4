"""The finding catalogue (assignments/results/findings.py) is the one list of finding codes: every finding
the package makes is in it with the severity it is made with, and every code in it is made somewhere."""

from __future__ import annotations

import ast
from pathlib import Path

import assignments
from assignments.exports import text
from assignments.results.findings import CATALOGUE, INTERNAL_CODES, STAFF_ONLY_CODES
from assignments.runs.manifest import IntakeFinding

PACKAGE = Path(assignments.__file__).parent


def _as_recorded(code: str) -> str:
    """An intake finding's code as a record holds it (the one conversion: ``IntakeFinding.as_finding``)."""
    return IntakeFinding(code, "").as_finding().code


# Who makes findings, how a literal code becomes a catalogue code, and the source the catalogue must say
MAKERS = {"Finding": (str, "grader"), "IntakeFinding": (_as_recorded, "intake")}


def _made() -> list[tuple[str, str | None, str, str]]:
    """(catalogue code, severity or None where the call computes it, where, source) for each call with a
    literal code."""
    made = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            maker = getattr(node.func, "id", getattr(node.func, "attr", None))
            if maker not in MAKERS:
                continue
            keywords = {k.arg: k.value for k in node.keywords}
            code = node.args[0] if node.args else keywords.get("code")
            if not (isinstance(code, ast.Constant) and isinstance(code.value, str)):
                continue
            position = 2 if maker == "Finding" else 4
            severity = node.args[position] if len(node.args) > position else keywords.get("severity")
            if severity is None:
                severity_text = "warning"  # both records' default
            else:
                severity_text = severity.value if isinstance(severity, ast.Constant) else None
            recorded, source = MAKERS[maker]
            made.append((recorded(code.value), severity_text, f"{path.relative_to(PACKAGE)}:{node.lineno}", source))
    return made


def test_every_finding_the_package_makes_is_in_the_catalogue_with_its_severity():
    made = _made()
    assert len(made) > 40, "the scan found too few findings to be reading the package"
    unknown = [(code, where) for code, _, where, _ in made if code not in CATALOGUE]
    assert not unknown, f"finding codes missing from results/findings.py: {unknown}"
    wrong = []
    for code, severity, where, _ in made:
        allowed = CATALOGUE[code].severity
        allowed = allowed if isinstance(allowed, tuple) else (allowed,)
        if severity is not None and severity not in allowed:
            wrong.append((code, severity, allowed, where))
    assert not wrong, f"findings made with another severity than the catalogue's: {wrong}"
    misplaced = [(code, source, where) for code, _, where, source in made if CATALOGUE[code].source != source]
    assert not misplaced, f"findings the catalogue says another maker makes (its bare source rows): {misplaced}"


def test_every_code_in_the_catalogue_is_made_somewhere():
    strings = set()
    for path in PACKAGE.rglob("*.py"):
        strings |= {
            node.value
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        }
    made = strings | {_as_recorded(s) for s in strings}  # an intake code is made as the intake's own
    unused = [code for code in CATALOGUE if code not in made]
    assert not unused, f"catalogue codes nothing in the package makes: {unused}"


def test_the_exports_hide_what_the_catalogue_says_students_must_not_read():
    assert text.INTERNAL_CODES == INTERNAL_CODES and text.STAFF_ONLY_CODES == STAFF_ONLY_CODES
    assert {"suite-problem", "grader-error", "kernel-start-failed"} <= INTERNAL_CODES
    assert "sandbox-degraded" in STAFF_ONLY_CODES and "shortcut" not in STAFF_ONLY_CODES | INTERNAL_CODES
