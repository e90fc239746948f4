"""Optional parts of a notebook (issue 26, item 5): rnn_attention's corpus comparison is off by default, worth
no points, and its model answer reaches staff only.

- its switch, RUN_CORPUS_COMPARISON, sits in a small cell of its own just before the comparison (a cell the
  student can edit; tests/course/test_switch_cells.py checks where and how);
- switched off (the release's default), or with the switch cell deleted, the comparison cell in student mode
  defines its functions, prints one line saying how to switch it on and runs nothing else (executed here with
  the few notebook names its top level needs; the Colab rehearsal runs it switched on against the stand-in
  hub);
- in grading mode it runs its small offline version whatever the switch says, so the committed solutions
  keep its figure;
- the question has no graded cell (no points, no evidence), and its model answer is in
  solutions/rnn_attention/model_answers.md but not in the release.
"""

from __future__ import annotations

import re

import pytest
import torch

from assignments import notebooks
from assignments.course import default

HW = default().assignment("rnn_attention")
SKIPPED = "Optional part skipped: to run it, set RUN_CORPUS_COMPARISON = True in the cell above and run both cells"


def cell(nb, cell_id):
    return next(c for c in nb.cells if c.get("id") == cell_id)


def run_cell(source: str, grading: bool, switch: str = "") -> tuple[dict, list[str]]:
    """Run the comparison cell's ``source`` after the switch cell's (``switch``; "" as if it were deleted)."""
    printed = []
    names = {
        "GRADING": grading,
        "CHECKPOINT": "google/bert_uncased_L-4_H-256_A-4",
        "torch": torch,
        "print": lambda *args, **kwargs: printed.append(" ".join(map(str, args))),
    }
    exec(compile(switch, "corpus_switch", "exec"), names)  # noqa: S102 - the course's own source cell
    exec(compile(source, "corpus_comparison", "exec"), names)  # noqa: S102 - the course's own source cell
    return names, printed


@pytest.mark.parametrize("switch_cell", ["as released", "deleted"])
def test_switched_off_in_student_mode_it_prints_how_to_switch_it_on_and_runs_nothing(switch_cell):
    nb = HW.source_notebook()
    switch = cell(nb, "corpus_switch").source
    assert switch.count("RUN_CORPUS_COMPARISON = False") == 1, "the switch is one line, off by default"
    source = cell(nb, "corpus_comparison").source
    assert not re.search(r"^\s*RUN_CORPUS_COMPARISON\s*=", source, re.M), "the switch belongs in its own cell"
    names, printed = run_cell(source, grading=False, switch=switch if switch_cell == "as released" else "")
    assert printed == [SKIPPED]
    assert "corpus_curves" not in names and "encoders" not in names
    assert callable(names["finetune_curve"])  # the definitions are there for a student who switches it on


def test_the_release_ships_it_switched_off_and_a_graded_run_takes_the_small_version():
    released = cell(HW.release_notebook(), "corpus_switch").source
    assert "RUN_CORPUS_COMPARISON = False" in released and "RUN_CORPUS_COMPARISON = True" not in released
    solution = cell(notebooks.read(HW.solution_path), "corpus_comparison")
    text = "".join(o.get("text", "") for o in solution.outputs if o.get("output_type") == "stream")
    assert "FALLBACK (graded run)" in text and SKIPPED not in text
    assert any("image/png" in o.get("data", {}) for o in solution.outputs), "the staff solutions lost the figure"


def test_the_optional_question_is_worth_nothing_and_its_model_answer_stays_with_staff():
    source = HW.source_notebook()
    ids = {q.grade_id for q in notebooks.questions(source)}
    assert not ids & {"corpus_written", "corpus_answer"}
    answer = cell(source, "corpus_answer")
    assert answer.cell_type == "markdown" and "nbgrader" not in answer.metadata and "course" not in answer.metadata
    model = HW.optional_answers_path.read_text(encoding="utf-8").split("## corpus_answer\n", 1)[1]
    answers = (HW.solutions_folder / "model_answers.md").read_text(encoding="utf-8")
    assert "## corpus_answer (optional, no points)" in answers and "Optional question (no points" in answers
    release_text = "\n".join(c.source for c in HW.release_notebook().cells)
    long_lines = [line.strip() for line in model.split("\n") if len(line.strip()) >= 40]
    assert long_lines and all(line in answers for line in long_lines)
    assert not [line for line in long_lines if line in release_text], "the release carries the model answer"


def test_a_section_that_names_no_ungraded_cell_stops_the_release():
    from assignments.release import model_answers

    source = HW.source_notebook()
    for heading in ("corpus_written", "bert_frozen_written"):  # gone from the source; a graded answer
        with pytest.raises(ValueError, match=heading):
            model_answers(source, HW.name, HW.title, f"## {heading}\n\nsome model answer\n")
