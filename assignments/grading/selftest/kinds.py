"""The kinds of behaviour every graded definition answers for in its behaviour map.

A blind bug hunt (autograder/README.md, Blind hunts) found the mistakes that reach a submission unnoticed
clustered in a few kinds of behaviour that authors test on the path they had in mind only. So every graded
definition (a public function or class of an answer cell that an autograded test cell checks) has, for
each kind below, at least one behaviour-map row naming that kind: a hidden test that checks it, with the
mutant it catches (``@behaviour(..., kind="state")``), or an ``OUT_OF_SCOPE`` entry whose fourth field is
the kind and whose reason says why it does not apply (``("f", "behaviour", "why", "state")``).
``course selftest`` prints, per question, the kinds that still have no row, and counts each as a problem.
"""

from __future__ import annotations

import ast

from assignments import notebooks

# kind -> what a row of that kind shows; the words the behaviour-map rows and the self-test's report use.
KINDS: dict[str, str] = {
    "randomness": "randomness in every branch: draws from a passed generator, and the global state otherwise",
    "validation-order": "argument checks and special cases in the order the skeleton states",
    "boundary": "exact boundaries: a running float sum landing on a threshold (> against >=)",
    "ties": "ties at sizes where the library changes behaviour (PyTorch's CPU sort keeps equal keys in "
    "index order only for short rows)",
    "degenerate": "degenerate values (the keep-everything value, an empty selection) at the sizes students use",
    "state": "state across calls: two sequences interleaved, a restart from an earlier state, the module unchanged",
    "device": "the device of what it makes follows its inputs, varied where the dtype is",
    "non-integer": "hyper-parameters that are not whole numbers (integer division passes whole numbers)",
    "step-tolerance": "optimisation steps checked with a tolerance derived from the size of the effect",
    "batch-of-one": "a batch of one (a squeeze that drops the batch axis)",
}


def graded_definitions(nb) -> dict[str, str]:
    """Definition -> the autograded test cell (grade_id) that checks it: the public top-level functions
    and classes of each answer cell that an autograded test cell follows before the next answer cell."""
    graded, pending = {}, []
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        if notebooks.is_answer(cell):
            try:
                body = ast.parse(cell.source).body
            except SyntaxError:
                body = []
            pending = [
                node.name
                for node in body
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and not node.name.startswith("_")
            ]
        elif notebooks.is_autograded_test(cell) and pending:
            graded.update(dict.fromkeys(pending, notebooks.grade_id(cell)))
            pending = []
    return graded


def missing_kinds(definitions: dict[str, str], rows) -> dict[str, list[str]]:
    """Definition -> the kinds no row of ``rows`` (behaviour-map rows: ``definition``, ``kind``) answers for."""
    answered = {(row.definition, row.kind) for row in rows if row.kind}
    return {
        definition: missing
        for definition in definitions
        if (missing := [kind for kind in KINDS if (definition, kind) not in answered])
    }


def kind_problems(assignment: str, definitions: dict[str, str], rows) -> list[str]:
    """One problem per graded definition that lacks a row of some kind."""
    return [
        f"{assignment} behaviour map: {definition} has no row of kind {', '.join(missing)} "
        f"(a test with its mutant, kind=..., or an OUT_OF_SCOPE entry with the kind and why)"
        for definition, missing in missing_kinds(definitions, rows).items()
    ]
