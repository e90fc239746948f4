"""Switches a student is told to flip sit in small cells of their own that Jupyter lets them edit, and
grading ignores them.

nbgrader marks every locked cell `"editable": false` in the release, so a switch inside one could not be
flipped. Each switch has a plain code cell instead (no nbgrader metadata, so nbgrader neither locks nor
tracks it; `source/README.md`, *Switch cells*), next to the cell it governs, and the locked cells read it
only through `globals().get(name, False)`, so a notebook whose switch cell was deleted still runs.

Checked here, without running a whole notebook:

- where each switch sits, in the source and in the release, and that its line is written once, so the Colab
  rehearsal's string replacement (`FULL_SIZE_ON_CPU = False` -> `True`) flips exactly the switch;
- restore (the standalone door, and the nbgrader door through repair) runs the release's copy of a switch
  cell whatever the student did to it: deleted, flipped or emptied, the cells that run are the untouched
  submission's, and only an emptied cell leaves a note (an empty cell of the student's own);
- the standalone door gives transfer_lm's reference answers full marks with the switch flipped (about 15 s
  idle, 33 s in CI: marked ``course``, so ``make check-course`` runs it);
- in grading mode a live `FULL_SIZE_ON_CPU = True` (what a kernel sees when nothing restores the notebook)
  leaves transfer_lm's pre-training at its graded size (a few seconds: the cells up to pre-training only).
"""

from __future__ import annotations

import ast
import copy

import nbformat
import pytest

from assignments import notebooks
from assignments.course import default
from assignments.grading.doors.inprocess import execute_cells
from assignments.grading.doors.standalone import grade_submission
from assignments.grading.selftest import reference
from assignments.grading.submission.restore import restore, switch_names
from tests.helpers import QUICKEST, notebook_bytes

# assignment -> {switch: (where its cell sits, relative to the cell with this grade_id)}
SWITCHES = {
    "transformers": {"FULL_SIZE_ON_CPU": ("after", "setup")},
    "rnn_attention": {"RUN_CORPUS_COMPARISON": ("before", "corpus_comparison")},
    "transfer_lm": {"FULL_SIZE_ON_CPU": ("after", "setup")},
}


def notebook(assignment: str, kind: str):
    hw = default().assignment(assignment)
    return hw.source_notebook() if kind == "source" else hw.release_notebook()


def sets(cell, name: str) -> bool:
    """Whether a code cell assigns ``name`` at top level."""
    tree = ast.parse(cell.source)
    return any(
        isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
        for node in tree.body
    )


def switch_cell_index(nb, name: str) -> int:
    found = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and sets(c, name)]
    assert len(found) == 1, f"{name} is set in {len(found)} code cells; it belongs in one switch cell"
    return found[0]


@pytest.mark.parametrize("kind", ["source", "release"])
@pytest.mark.parametrize("assignment", sorted(SWITCHES))
def test_each_switch_sits_in_a_small_editable_cell_of_its_own(assignment, kind):
    nb = notebook(assignment, kind)
    text = "\n".join(c.source for c in nb.cells)
    for name, (side, neighbour) in SWITCHES[assignment].items():
        index = switch_cell_index(nb, name)
        cell = nb.cells[index]
        assert "nbgrader" not in cell.metadata, f"{name}: the switch cell must not be an nbgrader cell"
        assert cell.metadata.get("editable") is not False and cell.metadata.get("deletable") is not False
        assert switch_names(cell) and switch_names(cell) <= set(SWITCHES[assignment]), (
            f"{name}: the switch cell holds only switches (NAME = <constant>) and comments:\n{cell.source}"
        )
        lines = cell.source.splitlines()
        at = lines.index(f"{name} = False")
        assert at > 0 and lines[at - 1].startswith("# "), f"{name}: off by default, with a comment above it"
        assert text.count(f"{name} = False") == 1, f"{name} = False must occur once (the rehearsal flips it)"
        other = index - 1 if side == "after" else index + 1
        assert notebooks.grade_id(nb.cells[other]) == neighbour, f"{name}: its cell sits {side} {neighbour}"
        # Read only through globals().get(name, ...): deleting the switch cell must not break a locked cell.
        bare = [
            notebooks.grade_id(c)
            for i, c in enumerate(nb.cells)
            if c.cell_type == "code"
            and i != index
            and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(ast.parse(c.source)))
        ]
        assert bare == [], f"{name} is used by name in {bare}; read it with globals().get({name!r}, False)"


def tampered(nb, how: str):
    """``nb`` with each switch cell deleted, flipped to True, or emptied."""
    nb = copy.deepcopy(nb)
    cells = [c for c in nb.cells if c.cell_type == "code" and not notebooks.nbgrader(c) and switch_names(c)]
    assert cells, "the notebook has no switch cell"
    for cell in cells:
        if how == "deleted":
            nb.cells.remove(cell)
        elif how == "flipped":
            cell.source = cell.source.replace(" = False", " = True")
        else:
            cell.source = ""
    return nb


def cells_that_run(nb) -> list[str]:
    return [c.source for c in notebooks.cells_to_run(nb)]


@pytest.mark.parametrize("how", ["deleted", "flipped", "emptied"])
@pytest.mark.parametrize("assignment", sorted(SWITCHES))
def test_restore_runs_the_releases_switch_cells_whatever_the_student_did(assignment, how):
    hw = default().assignment(assignment)
    release = hw.release_notebook()
    answered = reference.as_submitted(hw, reference.reference_notebook(hw))
    untouched, findings = restore(answered, release)
    assert findings == []
    restored, findings = restore(tampered(answered, how), release)
    if how == "emptied":
        assert {f.code for f in findings} == {"student-cells-added"}, [f.message for f in findings]
        assert [s for s in cells_that_run(restored) if s.strip()] == cells_that_run(untouched)
    else:
        assert findings == [], [f.message for f in findings]
        assert cells_that_run(restored) == cells_that_run(untouched)


@pytest.mark.course
def test_flipped_switch_keeps_full_marks_in_the_standalone_door():
    """Deleted, flipped and untouched switch cells restore to the same notebook (the test above), so one
    grading of the flipped one stands for all three. A whole real grading (switches are the real course's;
    the toy has none), so it runs in ``make check-course``; restore itself is checked above, in ``make test``."""
    answered = reference.as_submitted(
        default().assignment(QUICKEST), reference.reference_notebook(default().assignment(QUICKEST))
    )
    result = grade_submission(default().assignment(QUICKEST), notebook_bytes(tampered(answered, "flipped")))
    assert result.status == "graded"
    assert reference.full_marks_problems(result, "switch flipped") == []
    # The answered release never ran, so its evidence cell has no outputs; nothing else may be reported.
    assert {f.code for f in result.findings} <= {"evidence-missing"}, [f.message for f in result.findings]


def test_a_graded_run_ignores_a_live_full_size_switch():
    answered = tampered(
        reference.as_submitted(
            default().assignment(QUICKEST), reference.reference_notebook(default().assignment(QUICKEST))
        ),
        "flipped",
    )
    stop = next(i for i, c in enumerate(answered.cells) if notebooks.grade_id(c) == "pretrain_run")
    namespace, findings = execute_cells(nbformat.v4.new_notebook(cells=answered.cells[: stop + 1]))
    assert findings == [], [f.message for f in findings]
    assert namespace["FULL_SIZE_ON_CPU"] is True and namespace["small_cpu_run"]() is False
    assert (len(namespace["train_x"]), namespace["EPOCHS"]) == (64, 1), "a graded run pre-trains at its own size"
