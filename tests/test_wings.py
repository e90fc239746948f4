"""The package's floors (issue #49): each wing of ``assignments/`` imports only from the floors below it.

From the ground up: the course model, its settings, its locks and the small modules every wing shares
(``assignments/*.py``); the results record; the run (``runs/``: its folder, manifest, store, shards and
regrades); the grading engine (whose own folders ``tests/grading/test_layers.py`` orders); intake and the
release pipeline; the exports; the platforms; the workflow (the instructor's jobs as recipes); the wings
that serve people on top of it (delivery, hand grading, similarity, the demo); the command line.

Read with ``ast`` like the engine's layers test, so an import inside a function counts as much as one at
the top of a file. Every wing is a package whose ``__init__`` says what it holds.
"""

from __future__ import annotations

import ast

import pytest

from tests.grading.test_layers import PACKAGE, import_graph

# Bottom to top; a wing may import its own floor's modules and any floor below, never one above.
FLOORS: list[set[str]] = [
    {"ground"},
    {"results"},
    {"runs"},
    {"grading"},
    {"intake", "release"},
    {"exports"},
    {"platforms"},
    {"workflow"},
    {"delivery", "handgrading", "similarity", "demo"},
    {"cli", "__main__"},
]
# Modules at the package's top that are a floor of their own rather than the ground.
TOP_MODULES_WITH_A_FLOOR = {"workflow", "__main__"}


def wing_of(module: str) -> str:
    """``assignments.runs.folder`` -> ``runs``; ``assignments.course`` -> ``ground``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "ground"
    if (PACKAGE / parts[1]).is_dir():
        return parts[1]
    return parts[1] if parts[1] in TOP_MODULES_WITH_A_FLOOR else "ground"


def floor_of(wing: str) -> int:
    return next(i for i, floor in enumerate(FLOORS) if wing in floor)


def test_every_wing_has_a_floor_and_says_what_it_holds():
    wings = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    named = set().union(*FLOORS)
    assert wings <= named, f"wings without a floor here: {sorted(wings - named)}"
    assert named - {"ground"} - TOP_MODULES_WITH_A_FLOOR <= wings, "a floor names a wing that is gone"
    silent = [
        wing
        for wing in sorted(wings)
        if not ast.get_docstring(ast.parse((PACKAGE / wing / "__init__.py").read_text(encoding="utf-8")))
    ]
    assert not silent, f"wings whose __init__ says nothing of what they hold: {silent}"


def test_the_reader_places_modules_on_their_floors():
    assert wing_of("assignments.runs.folder") == "runs"
    assert wing_of("assignments.platforms.gradescope.runner") == "platforms"
    assert wing_of("assignments.course") == wing_of("assignments.locks") == "ground"
    assert wing_of("assignments.workflow") == "workflow"
    graph = import_graph()
    assert any(wing_of(a) == "cli" and wing_of(b) == "workflow" for a, out in graph.items() for b in out), (
        "no import from the command line to the workflow seen at all"
    )


@pytest.mark.parametrize("floor", range(len(FLOORS)), ids=lambda i: "+".join(sorted(FLOORS[i])))
def test_a_floor_imports_nothing_from_the_floors_above_it(floor):
    wrong = [
        f"{module} imports {target} (line {line}): {wing_of(module)} must not import {wing_of(target)}, "
        "a floor above it"
        for module, imported in sorted(import_graph().items())
        if floor_of(wing_of(module)) == floor
        for target, line in sorted(imported.items())
        if floor_of(wing_of(target)) > floor
    ]
    assert not wrong, "\n".join(wrong)
