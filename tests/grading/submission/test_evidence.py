"""Written answers' evidence: the outputs a written answer relies on, kept as the student submitted them.

Statuses and findings (``assignments/grading/submission/evidence.py``), the hygiene rule for the metadata, the nbgrader
preprocessors that put the evidence under the answer (run on a notebook here; the real ``nbgrader
autograde`` and formgrader run in tests/handgrading/test_formgrader.py), feedback and the class report, the
standalone door's record on one grading of the toy course given an evidence cell (``course written``'s PDFs:
tests/handgrading/test_written.py).
"""

from __future__ import annotations

import copy
import json

import nbformat
import pytest

from assignments import notebooks
from assignments.course import default, resolve
from assignments.demo import students as demo_class
from assignments.exports.feedback import feedback_html, feedback_markdown
from assignments.exports.report import student_markdown, summary_markdown
from assignments.grading.doors.nbgrader.evidence import KEPT_KEY, KeepEvidence, ShowEvidence
from assignments.grading.submission import evidence
from assignments.release import hygiene
from tests.helpers import QUICKEST

ASSIGNMENT = QUICKEST
HW = default().assignment(ASSIGNMENT)
QUESTION, CELL = "transfer_plot_written", "transfer_run"
RUN_FIGURE, EDITED_FIGURE = "0.8731", "0.9731"  # demo_class.COLAB_LINE and hand_edited


def ran_on_colab(student: str = "reference"):
    return demo_class.colab_run(demo_class.filled_release(HW), HW, student)


def evidence_cell(nb):
    return next(c for c in nb.cells if notebooks.grade_id(c) == CELL)


def test_the_source_names_evidence_for_every_run_dependent_question():
    wanted = {
        a: notebooks.evidence_cells(resolve(a).source_notebook())
        for a in ("transformers", "rnn_attention", "transfer_lm")
    }
    assert wanted["transformers"] == {
        "own_reviews_written": ("train_sentiment", "own_reviews_run"),
        "exploration_written": ("load_data_and_bert", "train_sentiment", "train_change"),
        "mask_80_written": ("mask_rules",),
    }
    assert set(wanted["rnn_attention"]) == {
        "more_data_written",
        "failure_modes_written",
        "attention_speed_written",
        "size_data_written",
        "kv_cache_written",
        "positional_written",
        "lora_written",
        "clip_prompting_written",
    }
    assert wanted["transfer_lm"] == {QUESTION: (CELL,), "dpo_written": ("dpo_run",)}


def mine(items):
    """The evidence of the question these tests damage (the assignment has other run-dependent questions)."""
    return [i for i in items if i.question == QUESTION]


def test_a_run_notebook_keeps_its_evidence_verbatim_with_no_finding():
    items, findings = evidence.collect(ran_on_colab(), HW)
    assert findings == []
    assert {i.status for i in items} == {"kept"}
    items = mine(items)
    assert [(i.question, i.cell, i.status) for i in items] == [(QUESTION, CELL, "kept")]
    kinds = [o["kind"] for o in items[0].outputs]
    assert kinds == ["text", "image"] and RUN_FIGURE in items[0].outputs[0]["text"]
    assert "Student's own run" in evidence.label(items[0])


@pytest.mark.parametrize(
    "damage, status, code",
    [
        ("deleted", "missing", evidence.MISSING),
        ("cleared", "not-run", evidence.MISSING),
        ("number typed in", "edited", evidence.EDITED),
        ("code changed", "edited", evidence.EDITED),
        ("result count forged", "edited", evidence.EDITED),
    ],
)
def test_a_deleted_unrun_or_edited_evidence_output_is_a_finding(damage, status, code):
    nb = ran_on_colab()
    cell = evidence_cell(nb)
    if damage == "deleted":
        nb.cells.remove(cell)
    elif damage == "cleared":
        cell.outputs, cell.execution_count = [], None
    elif damage == "number typed in":
        nb = demo_class.hand_edited(nb)
    elif damage == "code changed":
        cell.source += "\nprint('VALIDATION ACCURACY 0.99')"
    else:
        cell.outputs.append(
            nbformat.v4.new_output(
                "execute_result", data={"text/plain": "0.99"}, execution_count=cell.execution_count + 7
            )
        )
    items, findings = evidence.collect(nb, HW)
    items = mine(items)
    assert [i.status for i in items] == [status]
    assert [(f.code, f.cell) for f in findings] == [(code, QUESTION)]
    assert "FLAGGED" in evidence.label(items[0])


def test_html_and_javascript_outputs_are_never_kept():
    nb = ran_on_colab()
    evidence_cell(nb).outputs.append(
        nbformat.v4.new_output(
            "display_data", data={"text/html": "<script>alert(1)</script>", "text/plain": "<table object>"}
        )
    )
    items, _ = evidence.collect(nb, HW)
    assert "<script>" not in json.dumps([i.outputs for i in items])
    assert items[0].outputs[-1] == {"kind": "text", "text": "<table object>"}


def test_hygiene_refuses_evidence_that_names_no_locked_cell_before_the_answer():
    data = json.loads(resolve(ASSIGNMENT).source_path.read_text(encoding="utf-8"))
    written = next(c for c in data["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == QUESTION)
    for names, expected in (
        ([["nowhere"]], "is not the grade_id of a cell before"),
        ([["finetune"]], "must be a locked code cell"),
        ([[]], "non-empty list"),
        ([["lm_batches_tests"]], "must be a locked code cell"),
    ):
        written["metadata"]["course"] = {"evidence": names[0]}
        problems = [str(p) for p in hygiene.check_data(copy.deepcopy(data), "nb")]
        assert any(expected in p for p in problems), (names, problems)
    written["metadata"]["course"] = {"evidence": [CELL], "forbidden_calls": ["x"]}
    assert any("unknown key(s) forbidden_calls" in str(p) for p in hygiene.check_data(copy.deepcopy(data), "nb"))


def test_nbgrader_preprocessors_show_the_submitted_outputs_under_the_answer_and_mark_the_rerun():
    nb = demo_class.hand_edited(ran_on_colab())
    nb.metadata[KEPT_KEY] = [{"question": QUESTION, "cell": CELL, "status": "kept", "outputs": []}]  # forged
    resources = {"nbgrader": {"assignment": ASSIGNMENT}}
    nb, resources = KeepEvidence().preprocess(nb, resources)
    for cell in nb.cells:  # what nbgrader's ClearOutput and Execute do in between
        if cell.cell_type == "code":
            cell.outputs = []
    evidence_cell(nb).outputs = [nbformat.v4.new_output("stream", name="stdout", text="accuracy 0.51 (grading)\n")]
    nb, _ = ShowEvidence().preprocess(nb, resources)
    assert KEPT_KEY not in nb.metadata
    position = next(i for i, c in enumerate(nb.cells) if notebooks.grade_id(c) == QUESTION)
    shown = nb.cells[position + 1]
    text = "".join(o.get("text", "") for o in shown.outputs)
    assert notebooks.grade_id(shown) is None and "FLAGGED (edited)" in text and EDITED_FIGURE in text
    assert any("image/png" in o.get("data", {}) for o in shown.outputs)
    rerun = evidence_cell(nb).outputs
    assert "NOT the student's numbers" in rerun[0]["text"] and "0.51" in rerun[1]["text"]


def test_feedback_and_class_report_carry_the_evidence():
    from assignments.results.model import QuestionResult, SubmissionResult

    items, findings = evidence.collect(demo_class.hand_edited(ran_on_colab("ada")), HW)
    result = SubmissionResult(
        "ada",
        ASSIGNMENT,
        "standalone",
        evidence=items,
        findings=findings,
        questions=[QuestionResult(QUESTION, "manual", 2.0)],
    )
    result = SubmissionResult.from_dict(json.loads(result.to_json()))  # as every exporter reads it
    markdown, page = feedback_markdown(result), feedback_html(result)
    for text in (markdown, page):
        assert EDITED_FIGURE in text and "FLAGGED (edited)" in text
    assert "data:image/png;base64," in page
    summary, page = summary_markdown([result]), student_markdown(result)
    assert "## Written answers' evidence" in summary and "| 1 | 0 | 1 |" in summary, "counted by status"
    assert "## Written answers' evidence" in page and EDITED_FIGURE in page and "FLAGGED (edited)" in page


def toy_with_evidence(folder):
    """The toy course whose written question names the locked ``setup`` cell as its evidence (the real
    assignments' run cells take minutes to grade; the door's reading of evidence is the same)."""
    from tests.fixtures import toy

    the_toy = toy.build(folder)
    for kind, nb in (("source", the_toy.source), ("release", the_toy.release)):
        written = next(c for c in nb.cells if notebooks.grade_id(c) == "scale_written")
        written.metadata["course"] = {"evidence": ["setup"]}
        (folder / kind / toy.NAME / f"{toy.NAME}.ipynb").write_text(nbformat.writes(nb))
    return the_toy


def test_the_standalone_door_records_the_submitted_evidence(tmp_path):
    from assignments.grading.doors.standalone import grade_submission

    the_toy = toy_with_evidence(tmp_path / "toy")
    ran = demo_class.colab_run(the_toy.reference(), the_toy.assignment, "ada")
    path = the_toy.write(demo_class.hand_edited(ran), "ada.ipynb")
    result = grade_submission(the_toy.assignment, path, "ada", **the_toy.overrides())
    assert result.status == "graded"
    assert [(e.cell, e.status) for e in result.evidence] == [("setup", "edited")]
    assert EDITED_FIGURE in result.evidence[0].outputs[0]["text"]
    assert [f.cell for f in result.findings if f.code == evidence.EDITED] == ["scale_written"]


def test_course_repair_keeps_evidence_cells_as_submitted(tmp_path):
    from assignments.grading.doors.nbgrader.repair import repair_submission
    from assignments.grading.submission.load import default_template

    original = demo_class.hand_edited(ran_on_colab("ada"))
    path = tmp_path / "ada.ipynb"
    path.write_text(nbformat.writes(original), encoding="utf-8")
    done = repair_submission(path, "ada", default_template(HW), tmp_path / "repaired" / "ada.ipynb")
    repaired = notebooks.read(tmp_path / "repaired" / "ada.ipynb")
    assert evidence_cell(repaired).outputs == evidence_cell(original).outputs and done.repaired
    assert evidence.collect(repaired, HW)[0] == evidence.collect(original, HW)[0], (
        "the nbgrader door must see the evidence (and its flag) the standalone door sees"
    )
