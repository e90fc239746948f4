"""Damaged but honest notebooks are graded like the original (issue #11, items 1 and 3).

Every damaged variant is built from the filled release of one real assignment, the way a student's
notebook gets damaged: cells pasted into a fresh Colab notebook (no nbgrader metadata), grade_ids renamed
or left over from an older release, answer cells pasted twice, the file saved in another encoding or by
another editor. Most checks compare the notebook the standalone door would execute (``restore``) with
the one it builds from the intact original: same cells, same sources, same metadata means the same
score, and that is fast. One batch then grades the toy's (tests/fixtures/toy.py) original and its
notebook with all the damage at once through the sandbox and compares the scores question by question.
"""

from __future__ import annotations

import copy
import json
import os

import nbformat
import pytest

from assignments import notebooks
from assignments.course import default
from assignments.demo import students as demo_class
from assignments.demo.students import pasted_into_colab
from assignments.grading.doors.standalone import grade_submission
from assignments.grading.sandbox.limits import Limits
from assignments.grading.submission.load import load_submission
from assignments.grading.submission.recover import definitions, recover
from assignments.grading.submission.restore import check_assignment, restore
from tests.fixtures import toy
from tests.fixtures.damaged import ACCENTED, answer_pasted_twice, renamed, saved_as, with_one_mistake
from tests.helpers import QUICKEST

ASSIGNMENT = os.environ.get("COURSE_RECOVERY_ASSIGNMENT", QUICKEST)
OTHERS = [a for a in ("transformers", "rnn_attention", "transfer_lm") if a != ASSIGNMENT]
HW = default().assignment(ASSIGNMENT)
TOY_LIMITS = Limits(cell_timeout=20, call_timeout=10, total_timeout=60, startup_timeout=60)


def codes(findings):
    return [f.code for f in findings]


@pytest.fixture(scope="module")
def template():
    return default().assignment(ASSIGNMENT).release_notebook()


@pytest.fixture(scope="module")
def original():
    """The filled release with one known mistake, so scores are partial and answers must land right."""
    return with_one_mistake(HW)


def executed(nb, template):
    """What the standalone door runs and scores: every cell's type, source and nbgrader metadata."""
    restored, _ = restore(nb, template)
    return [(c.cell_type, c.source, notebooks.nbgrader(c)) for c in restored.cells]


def loaded(raw: bytes):
    nb, _, findings = load_submission(raw)
    assert nb is not None, f"the file was refused: {[f.message for f in findings]}"
    return nb, findings


# --- recovery by content -----------------------------------------------------------------------------------
def test_intact_notebook_needs_no_recovery(original, template):
    found = recover(original, template)
    assert found.summary() is None and found.findings == []
    assert {found.count("id")} == {len(found.how)}, "every cell should be found by its grade_id"


def test_cells_pasted_into_a_new_notebook_run_as_the_original(original, template):
    damaged = pasted_into_colab(original)
    assert executed(damaged, template) == executed(original, template)
    found = recover(damaged, template)
    methods = {m: found.count(m) for m in ("id", "text", "definitions", "position")}
    assert methods["id"] == 0 and methods["text"] and methods["definitions"] and methods["position"], methods
    _, findings = restore(damaged, template)
    summary = next(f for f in findings if f.code == "cells-recovered")
    for method, count in methods.items():
        if count and method != "id":
            assert f"{count} by" in summary.message and method in summary.message, summary.message


def test_every_grade_id_renamed_runs_as_the_original(original, template):
    damaged = renamed(original)
    assert executed(damaged, template) == executed(original, template)
    _, findings = restore(damaged, template)
    assert "cells-recovered" in codes(findings) and "unknown-grade-id" not in codes(findings), codes(findings)
    summary = next(f for f in findings if f.code == "cells-recovered")
    first = next(notebooks.grade_id(c) for c in template.cells if notebooks.grade_id(c))
    assert f"{first}_v2 -> {first}" in summary.message, summary.message


def test_points_raised_on_a_renamed_test_cell_are_reported_and_undone(original, template):
    damaged = renamed(original)
    test_cell = next(c for c in damaged.cells if notebooks.is_autograded_test(c))
    test_cell.metadata["nbgrader"]["points"] = 100
    assert executed(damaged, template) == executed(original, template)
    _, findings = restore(damaged, template)
    assert "metadata-changed" in codes(findings), "raising points should be reported even on a renamed cell"


def test_an_older_releases_grade_ids_run_as_the_original(original, template):
    damaged = renamed(original, which=lambda index: index % 3 == 0, suffix="_2025")
    assert executed(damaged, template) == executed(original, template)
    found = recover(damaged, template)
    assert found.count("id") and found.count("text"), dict(found.how)


def test_test_cells_reworded_by_an_older_release_are_found_and_replaced(original, template):
    damaged = renamed(original, suffix="_2025")
    tests = [c for c in damaged.cells if notebooks.is_autograded_test(c)]
    for cell in tests:  # an older release: the same checks, one line worded differently
        cell.source = cell.source.replace("# Visible check", "# Visible checks", 1)
    assert executed(damaged, template) == executed(original, template)
    _, findings = restore(damaged, template)
    summary = next(f for f in findings if f.code == "cells-recovered")
    assert f"{len(tests)} by their similar text" in summary.message, summary.message
    assert "test-cell-edited" in codes(findings) and "unknown-grade-id" not in codes(findings), codes(findings)


def test_a_renamed_answer_is_placed_by_the_docstring_it_kept(original, template):
    answer = next(
        c
        for c in original.cells
        if notebooks.is_answer(c) and c.cell_type == "code" and definitions(c.source).docstrings
    )
    name = sorted(definitions(answer.source).names)[0]
    damaged = pasted_into_colab(original)
    cell = next(c for c in damaged.cells if c.source == answer.source)
    cell.source = cell.source.replace(f"{name}(", f"my_{name}(", 1)
    found = recover(damaged, template)
    assert found.how[notebooks.grade_id(answer)] == "definitions", (
        f"the answer renamed to my_{name} should still be found by its docstring; found {dict(found.how)}"
    )


def test_last_complete_definition_of_a_pasted_twice_answer_is_graded(original, template):
    answer = next(c for c in original.cells if notebooks.is_answer(c) and c.cell_type == "code")
    name = sorted(definitions(answer.source).names)[0]
    attempt = f"def {name}(*args, **kwargs):\n    return None  # my first try\n"
    damaged, index = answer_pasted_twice(original, attempt)
    restored, findings = restore(damaged, template)
    graded = next(c.source for c in restored.cells if notebooks.grade_id(c) == notebooks.grade_id(answer))
    assert graded == answer.source, "the later, complete definition should be the graded answer"
    ambiguous = [f for f in findings if f.code == "recovery-ambiguous"]
    assert ambiguous and name in ambiguous[0].message and f"cell {index + 2}" in ambiguous[0].message, [
        f.message for f in findings
    ]
    # the first try still runs, before the answer, as the student's own code (as a run-all would)
    sources = [c.source for c in notebooks.cells_to_run(restored)]
    assert sources.index(attempt) < sources.index(answer.source)


def test_a_later_copy_with_a_syntax_error_does_not_replace_a_complete_answer(original, template):
    answer = next(c for c in original.cells if notebooks.is_answer(c) and c.cell_type == "code")
    name = sorted(definitions(answer.source).names)[0]
    damaged = pasted_into_colab(original)
    index = next(i for i, c in enumerate(damaged.cells) if c.source == answer.source)
    damaged.cells.insert(index + 1, nbformat.v4.new_code_cell(f"def {name}(x:\n    half-written"))
    restored, findings = restore(damaged, template)
    graded = next(c.source for c in restored.cells if notebooks.grade_id(c) == notebooks.grade_id(answer))
    assert graded == answer.source, "the complete definition should win over a later one that does not parse"
    assert "recovery-ambiguous" in codes(findings)


def test_an_answer_duplicated_with_its_grade_id_runs_both_copies_in_order(original, template):
    answer = next(i for i, c in enumerate(original.cells) if notebooks.is_answer(c) and c.cell_type == "code")
    name = sorted(definitions(original.cells[answer].source).names)[0]
    damaged = copy.deepcopy(original)
    first_try = copy.deepcopy(damaged.cells[answer])
    first_try.source = f"def {name}(*args):\n    return None  # my first try\n"
    damaged.cells.insert(answer, first_try)  # same grade_id twice, the first try above the answer
    restored, findings = restore(damaged, template)
    sources = [c.source for c in notebooks.cells_to_run(restored)]
    assert sources.index(first_try.source) < sources.index(original.cells[answer].source), (
        "both copies should run in the student's order, so the later definition is the one tested"
    )
    assert "cell-duplicated" in codes(findings), codes(findings)


def test_two_written_answers_between_the_same_cells_are_joined_and_reported(original, template):
    damaged = pasted_into_colab(original)
    written = next(i for i, c in enumerate(original.cells) if notebooks.is_answer(c) and c.cell_type == "markdown")
    damaged.cells.insert(written + 1, nbformat.v4.new_markdown_cell("And one more thought."))
    restored, findings = restore(damaged, template)
    gid = notebooks.grade_id(original.cells[written])
    answer = next(c.source for c in restored.cells if notebooks.grade_id(c) == gid)
    assert original.cells[written].source in answer and "And one more thought." in answer
    assert any(f.code == "recovery-ambiguous" and gid in f.message for f in findings), codes(findings)


def test_a_pasted_twice_locked_cell_counts_once(original, template):
    damaged = pasted_into_colab(original)
    damaged.cells.insert(2, copy.deepcopy(damaged.cells[1]))
    restored, findings = restore(damaged, template)
    assert [c.source for c in restored.cells] == [c.source for c in restore(original, template)[0].cells]
    assert "cell-duplicated" in codes(findings)


def test_a_test_cell_pasted_again_into_an_intact_notebook_counts_once(original, template):
    damaged = copy.deepcopy(original)
    test_cell = next(i for i, c in enumerate(damaged.cells) if notebooks.is_autograded_test(c))
    damaged.cells.append(nbformat.v4.new_code_cell(damaged.cells[test_cell].source))
    _, findings = restore(damaged, template)
    assert executed(damaged, template) == executed(original, template)
    assert "cell-duplicated" in codes(findings), codes(findings)


@pytest.mark.parametrize("other", OTHERS)
def test_another_assignments_notebook_is_still_rejected(other, template):
    for label, nb in (
        ("intact", demo_class.filled_release(default().assignment(other))),
        ("pasted into Colab", pasted_into_colab(demo_class.filled_release(default().assignment(other)))),
    ):
        finding = check_assignment(nb, template)
        assert finding is not None and finding.code == "wrong-assignment", (
            f"{other}'s notebook ({label}) should be rejected as another assignment, not graded as {ASSIGNMENT}"
        )


def test_another_assignments_notebook_is_rejected_by_the_door(tmp_path):
    path = tmp_path / f"{OTHERS[0]}.ipynb"
    path.write_text(nbformat.writes(pasted_into_colab(demo_class.filled_release(default().assignment(OTHERS[0])))))
    result = grade_submission(HW, path, "someone")  # rejected before any kernel starts
    assert result.status == "rejected" and result.autograded_points == 0
    errors = [f.code for f in result.findings if f.severity == "error"]
    assert errors == ["wrong-assignment"], [f.message for f in result.findings]


# --- encodings and editors ----------------------------------------------------------------------------------
ENCODINGS = {  # label -> (encoding, newline, finding code, severity)
    "latin-1": ("latin-1", "\n", "text-encoding", "warning"),
    "cp1252": ("cp1252", "\n", "text-encoding", "warning"),
    "utf-16 with BOM": ("utf-16", "\n", "text-encoding", "info"),
    "utf-8 with BOM": ("utf-8-sig", "\n", "text-encoding", "info"),
    "windows line endings": ("utf-8", "\r\n", "line-endings", "info"),
}


@pytest.mark.parametrize("label", sorted(ENCODINGS))
def test_a_notebook_saved_in_another_encoding_runs_as_the_original(original, template, label):
    encoding, newline, code, severity = ENCODINGS[label]
    subject = copy.deepcopy(original)
    if encoding == "cp1252":  # bytes only Windows-1252 has, so it is told apart from Latin-1
        subject.cells[-1].source += "\n\u201cquoted\u201d \u2013 \u20ac5"
    nb, findings = loaded(saved_as(subject, encoding, newline))
    assert executed(nb, template) == executed(subject, template)
    assert [(f.code, f.severity) for f in findings] == [(code, severity)], [f.message for f in findings]
    if encoding == "cp1252":
        assert "Windows-1252" in findings[0].message, findings[0].message


def test_windows_line_endings_inside_cells_are_read_as_newlines(original, template):
    subject = copy.deepcopy(original)
    for cell in subject.cells:
        cell.source = cell.source.replace("\n", "\r\n")
    nb, findings = loaded(saved_as(subject, "utf-8", "\r\n"))
    assert executed(nb, template) == executed(original, template)
    assert codes(findings) == ["line-endings"]


def test_a_vs_code_export_runs_as_the_original(original, template):
    data = json.loads(nbformat.writes(original))
    data["metadata"]["vscode"] = {"interpreter": {"hash": "0f3a"}}
    data["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}, "version_major": 2}}
    for cell in data["cells"]:
        cell.pop("id", None)
        cell["metadata"]["vscode"] = {"languageId": "python"}
        if cell["cell_type"] == "code":
            cell["execution_count"] = None
    markdown = next(c for c in data["cells"] if c["cell_type"] == "markdown")
    markdown["attachments"] = {"plot.png": {"image/png": "iVBORw0KGgo="}}
    nb, findings = loaded(json.dumps(data).encode())
    assert executed(nb, template) == executed(original, template)
    assert codes(findings) == ["notebook-format"], [f.message for f in findings]
    for seen in ("VS Code", "widgets", "attachments", "without an id"):
        assert seen in findings[0].message, findings[0].message


def test_a_colab_notebook_in_latin_1_runs_as_the_original(original, template):
    nb, findings = loaded(saved_as(pasted_into_colab(original), "latin-1", "\r\n"))
    assert executed(nb, template) == executed(original, template)
    assert {"text-encoding", "line-endings", "notebook-format"} <= set(codes(findings)), codes(findings)


def test_intake_reads_a_utf_16_notebook_as_a_notebook(original, tmp_path):
    from assignments.intake import collect

    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "ada.ipynb").write_bytes(saved_as(original, "utf-16"))
    found = collect(tmp_path / "class", ASSIGNMENT, tmp_path / "out")
    assert found.students() == ["ada"] and found.findings == [], [f.message for f in found.findings]


def test_binary_data_is_still_refused():
    nb, _, findings = load_submission(b"\x89PNG\r\n\x1a\n\x00\x00IHDR")
    assert nb is None and codes(findings) == ["invalid-json"], [f.message for f in findings]


# --- end to end: the sandboxed door scores the damaged notebook like the original --------------------------
def all_the_damage(nb) -> bytes:
    """An older release's names on the first half, the rest pasted into Colab, an answer pasted twice,
    saved as Latin-1 with Windows line endings."""
    half = len(nb.cells) // 2
    first = renamed(nb, which=lambda index: True, suffix="_2025")
    colab = pasted_into_colab(nb)
    colab.cells[:half] = first.cells[:half]
    # An answer cell of the second half (the Colab copy keeps the cells in order, without metadata).
    answer = next(
        i
        for i, c in enumerate(nb.cells)
        if i >= half
        and c.cell_type == "code"
        and c.metadata.get("nbgrader", {}).get("solution")
        and definitions(c.source).names
    )
    name = sorted(definitions(colab.cells[answer].source).names)[0]
    colab.cells.insert(answer, nbformat.v4.new_code_cell(f"def {name}(*args):\n    raise ValueError('first try')\n"))
    return saved_as(colab, "latin-1", "\r\n")


# The toy's scale() answered wrongly: its two tests fail, add()'s pass, so the score is partial.
WRONG_SCALE = 'def scale(x, k):\n    """x * k, using add() k times (k a small int)."""\n    return add(x, x)\n'


def test_a_damaged_notebook_scores_what_the_original_scores(tmp_path):
    """The toy (a grading in seconds) stands for the real assignments here: restore builds the same
    notebook from the damaged file as from the intact one (the tests above, on a real assignment), and
    this checks the door then scores it alike."""
    the_toy = toy.build(tmp_path / "toy")
    original = demo_class.filled_release(the_toy.assignment, {"scale": WRONG_SCALE})
    first_answer = next(c for c in original.cells if notebooks.is_answer(c) and c.cell_type == "code")
    first_answer.source = ACCENTED + first_answer.source
    paths = {
        "original": the_toy.write(original, "original.ipynb"),
        "damaged": the_toy.folder / "submissions" / "damaged.ipynb",
    }
    paths["damaged"].write_bytes(all_the_damage(original))
    before, after = (
        grade_submission(the_toy.assignment, path, name, limits=TOY_LIMITS, **the_toy.overrides())
        for name, path in paths.items()
    )
    assert before.status == after.status == "graded", [f.message for f in before.findings + after.findings]
    assert 0 < before.autograded_points < before.autograded_max, (
        f"the original should lose points on its one mistake only; scored {before.scores()}"
    )
    assert after.scores() == before.scores(), (
        f"the damaged notebook should score what the original scores; {after.scores()} != {before.scores()}"
    )
    found = set(codes(after.findings))
    assert {"cells-recovered", "recovery-ambiguous", "text-encoding", "line-endings"} <= found, found
    assert "wrong-assignment" not in found and "answer-missing" not in found, found


@pytest.mark.parametrize("assignment", ["transformers", "rnn_attention"])
def test_answers_whose_skeleton_defines_nothing_are_found_by_their_comments(assignment):
    # MY_REVIEWS, the sentiment hyperparameters and MY_CAPTIONS are defined inside the solution region, so
    # their skeletons define no name; the comment lines above the stub still say which answer a cell is.
    template = default().assignment(assignment).release_notebook()
    nameless = [
        notebooks.grade_id(c)
        for c in template.cells
        if notebooks.is_answer(c) and c.cell_type == "code" and definitions(c.source).placeable_by_comments()
    ]
    assert nameless, f"{assignment} has no answer whose skeleton defines nothing: pick another assignment"
    original = demo_class.filled_release(default().assignment(assignment))
    damaged = pasted_into_colab(original)
    found = recover(damaged, template)
    assert {gid: found.how.get(gid) for gid in nameless} == {gid: "definitions" for gid in nameless}
    restored, findings = restore(damaged, template)
    assert "answer-missing" not in codes(findings), [f.message for f in findings if f.code == "answer-missing"]
    assert executed(damaged, template) == executed(original, template)
