"""The shortcut check: answers that use a library call their question forbids are flagged on that question.

Static tests on real notebooks (the release filled with the reference, one cell changed or added) run in
well under a second each; one test grades a notebook end to end through the standalone door with the
"zero" penalty and follows the finding into the record, the feedback and the class report.
"""

import copy

import nbformat
import pytest
import safetensors.torch  # noqa: F401 - in sys.modules, as in a grader that has loaded weights

from assignments import notebooks
from assignments.course import default
from assignments.demo import students as demo_class
from assignments.escaping import markdown_inline
from assignments.exports.feedback import feedback_html, feedback_markdown
from assignments.exports.report import summary_markdown
from assignments.exports.text import question_title
from assignments.grading.doors.nbgrader import door as nbgrader_door
from assignments.grading.selftest import mutation
from assignments.grading.submission import shortcuts
from assignments.grading.testkit.handle import answered_by
from assignments.release import hygiene
from assignments.results import model
from assignments.results.model import SubmissionResult, TestResult, score_questions

ASSIGNMENTS = default().order


def owners(assignment):
    return answered_by(default().assignment(assignment).release_notebook())


def rules(assignment, penalty=None):
    found = notebooks.shortcut_rules(default().assignment(assignment).source_notebook())
    if penalty:
        found = {q: notebooks.ShortcutRule(q, r.forbidden, penalty) for q, r in found.items()}
    return found


def student(assignment, answers=None, added=()):
    """The release filled with the reference, ``answers`` replacing answer cells, and ``added`` cells
    (position, source) inserted as a student inserts cells."""
    nb = demo_class.filled_release(default().assignment(assignment), answers)
    for position, source in sorted(added, reverse=True):
        nb.cells.insert(position, nbformat.v4.new_code_cell(source))
    return nb


def flagged(assignment, nb, penalty=None):
    """{question: [messages]} of the shortcut findings for ``nb``."""
    found = {}
    for finding in shortcuts.check(nb, owners(assignment), rules(assignment, penalty)):
        assert finding.code == shortcuts.CODE, finding
        found.setdefault(finding.cell, []).append(finding.message)
    return found


def answer_position(nb, grade_id):
    return next(i for i, c in enumerate(nb.cells) if notebooks.grade_id(c) == grade_id)


# --- declarations ------------------------------------------------------------------------------------------


def test_every_assignment_declares_rules_on_its_test_cells_and_hygiene_accepts_them():
    for assignment in ASSIGNMENTS:
        declared = rules(assignment)
        autograded = {q.grade_id for q in default().assignment(assignment).questions if q.kind == "autograded"}
        assert declared, f"{assignment}: no question declares forbidden calls in metadata.course"
        assert set(declared) <= autograded, (
            f"{assignment}: rules on cells that are not questions: {set(declared) - autograded}"
        )
        assert all(r.penalty == "flag" for r in declared.values()), "the course default is flag only"
        problems = hygiene.check_shortcut_rules(default().assignment(assignment).source_notebook().cells, assignment)
        assert not problems, "\n".join(map(str, problems))
    square = rules("transfer_lm")["square_mask_tests"].forbidden
    assert "torch.nn.Transformer.generate_square_subsequent_mask" in square, (
        "the square mask's contract forbids nn.Transformer.generate_square_subsequent_mask"
    )
    assert "torch.triu" not in square, "the contract does not forbid torch.triu (the reference uses .triu)"


def test_hygiene_reports_malformed_rules():
    nb = copy.deepcopy(default().assignment("transfer_lm").source_notebook())
    test_cell = next(c for c in nb.cells if notebooks.grade_id(c) == "square_mask_tests")
    answer_cell = next(c for c in nb.cells if notebooks.grade_id(c) == "square_mask")
    test_cell.metadata["course"] = {
        "forbidden_calls": ["torch.nn.Transformer.generate_square_mask", "NoSuchThing"],
        "shortcut_penalty": "halve",
        "forbiden": [],
    }
    answer_cell.metadata["course"] = {"forbidden_calls": ["torch.triu"]}
    messages = [p.message for p in hygiene.check_shortcut_rules(nb.cells, "transfer_lm.ipynb")]
    for expected in (
        "'torch.nn.Transformer.generate_square_mask' is not an importable object",
        "'NoSuchThing' is not defined",
        "shortcut_penalty 'halve'",
        "unknown key(s) forbiden",
        "only read on autograded test cells",
    ):
        assert any(expected in m for m in messages), f"expected a problem saying {expected!r}; got {messages}"


# --- no false positives -----------------------------------------------------------------------------------


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_reference_solutions_are_not_flagged(assignment):
    as_typed = flagged(assignment, demo_class.filled_release(default().assignment(assignment)))
    assert not as_typed, f"{assignment}: the reference solution was flagged: {as_typed}"
    source = flagged(assignment, default().assignment(assignment).source_notebook())
    assert not source, f"{assignment}: the source notebook (solutions in place) was flagged: {source}"


def test_local_names_strings_comments_and_annotations_are_not_uses():
    answer = (
        "def generate_square_subsequent_mask(size, nn=None) -> torch.nn.Transformer:\n"
        '    """Not nn.Transformer.generate_square_subsequent_mask."""\n'
        "    # nn.Transformer.generate_square_subsequent_mask(size) would be a shortcut\n"
        '    note = "nn.Transformer.generate_square_subsequent_mask"\n'
        "    Transformer = nn                     # a parameter shadows the module alias\n"
        "    kind: torch.nn.Transformer.generate_square_subsequent_mask = None\n"
        "    blocked = torch.ones(size, size, dtype=torch.bool).triu(diagonal=1)\n"
        '    return torch.zeros(size, size).masked_fill(blocked, float("-inf"))\n'
    )
    unused = "def unused_helper(size):\n    return nn.Transformer.generate_square_subsequent_mask(size)\n"
    nb = student("transfer_lm", {"square_mask": answer}, [(3, unused)])
    assert not flagged("transfer_lm", nb), (
        "a parameter, a string, a comment, an annotation or an unused helper is not a use"
    )


# --- direct use, aliases, helpers ----------------------------------------------------------------------------


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_oracle_called_directly_is_flagged_on_its_question_only(assignment):
    answers = mutation.shortcut_answers(default().assignment(assignment))
    assert answers, f"autograder/{assignment}/shortcuts/ has no shortcut answer"
    for answer in answers:
        found = flagged(assignment, student(assignment, {answer.replaces: answer.code}))
        assert set(found) == {answer.question}, (
            f"{answer.name}: expected a shortcut finding on {answer.question} only; got {found}"
        )
        assert "the score is unchanged" in found[answer.question][0], "flag only must say the score is kept"


SDPA_USES = {
    "alias of the function": (
        "from torch.nn import functional as G\nsdpa = G.scaled_dot_product_attention\n",
        "sdpa(q, k, v)",
    ),
    "module alias attribute chain": ("import torch as T\n", "T.nn.functional.scaled_dot_product_attention(q, k, v)"),
    "getattr with a constant": ("", 'getattr(F, "scaled_dot_product_attention")(q, k, v)'),
    "vars() of the module": ("", 'vars(F)["scaled_dot_product_attention"](q, k, v)'),
    "module __dict__": ("", 'F.__dict__["scaled_dot_product_attention"](q, k, v)'),
    "import_module": (
        "import importlib\nfun = importlib.import_module('torch.nn.functional')\n",
        "fun.scaled_dot_product_attention(q, k, v)",
    ),
    "star import": ("from torch.nn.functional import *\n", "scaled_dot_product_attention(q, k, v)"),
    "private re-export": ("import torch._C._nn as C\n", "C.scaled_dot_product_attention(q, k, v)"),
    # safetensors.torch holds torch as an attribute; the test imports it, as loading weights does in the grader
    "another package's re-export": (
        "import safetensors.torch as st\n",
        "st.torch.nn.functional.scaled_dot_product_attention(q, k, v)",
    ),
    "import inside the function": (
        "",
        "__import__('torch.nn.functional', fromlist=['x']).scaled_dot_product_attention(q, k, v)",
    ),
    "magic in the cell": (
        "%config InlineBackend.figure_format = 'png'\nsdpa = F.scaled_dot_product_attention\n",
        "sdpa(q, k, v)",
    ),
}


@pytest.mark.parametrize("how", sorted(SDPA_USES))
def test_oracle_through_an_alias_is_flagged(how):
    prelude, call = SDPA_USES[how]
    answer = (
        f"{prelude}\ndef scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):\n"
        f"    values = {call}\n"
        "    attention = torch.softmax(q @ k.transpose(-2, -1), dim=-1)\n"
        "    return values, attention\n"
    )
    found = flagged("transformers", student("transformers", {"scaled_dot_product": answer}))
    assert set(found) == {"scaled_dot_product_tests"}, f"{how}: expected scaled_dot_product_tests; got {found}"
    assert "torch.nn.functional.scaled_dot_product_attention" in found["scaled_dot_product_tests"][0]


def test_subclassing_the_oracle_under_another_module_path_is_flagged():
    answer = (
        "from torch.nn.modules.activation import MultiheadAttention as Library\n\n"
        "class MultiHeadAttention(Library):\n"
        "    def __init__(self, embed_dim, n_heads, attn_drop_rate):\n"
        "        super().__init__(embed_dim, n_heads, dropout=attn_drop_rate, batch_first=True)\n"
    )
    found = flagged("transformers", student("transformers", {"multi_head_attention": answer}))
    assert set(found) == {"multi_head_attention_tests"}, found
    assert "torch.nn.MultiheadAttention" in found["multi_head_attention_tests"][0]


def test_helper_in_another_cell_counts_against_the_answer_that_calls_it():
    nb = demo_class.filled_release(default().assignment("rnn_attention"))
    helper = (
        "def _step(cell, x, h):\n"
        "    oracle = nn.GRUCell(cell.input_size, cell.hidden_size)\n"
        "    return oracle(x, h)\n\n"
        "def gru_step(cell, x, h):\n"
        "    return _step(cell, x, h)\n"
    )
    answer_at = answer_position(nb, "gru_cell")
    answer = nb.cells[answer_at].source.replace(
        "r = torch.sigmoid(self.Wir(x) + self.Whr(h_prev))", "return gru_step(self, x, h_prev)"
    )
    assert answer != nb.cells[answer_at].source, "the reference's first line changed; update this test"
    nb.cells[answer_at].source = answer
    nb.cells.insert(2, nbformat.v4.new_code_cell(helper))
    found = flagged("rnn_attention", nb)
    assert set(found) == {"gru_cell_tests"}, (
        f"the helper is called from MyGRUCell only, so only gru_cell_tests should be flagged; got {found}"
    )
    message = found["gru_cell_tests"][0]
    assert "torch.nn.GRUCell" in message and "`gru_step` -> `_step`" in message and "added cell 3" in message, message


def test_another_questions_answer_is_not_followed():
    """GRUEncoder uses MyGRUCell; when MyGRUCell wraps the oracle, only gru_cell_tests is flagged (a
    mistake is reported once, on its own question)."""
    shortcut = next(
        a for a in mutation.shortcut_answers(default().assignment("rnn_attention")) if a.question == "gru_cell_tests"
    )
    found = flagged("rnn_attention", student("rnn_attention", {shortcut.replaces: shortcut.code}))
    assert set(found) == {"gru_cell_tests"}, found


def test_redefinition_in_an_added_cell_counts_for_the_answer_it_replaces():
    late = (
        "def generate_square_subsequent_mask(size):\n"
        "    return torch.nn.Transformer.generate_square_subsequent_mask(size)\n"
    )
    nb = demo_class.filled_release(default().assignment("transfer_lm"))
    nb.cells.append(nbformat.v4.new_code_cell(late))
    found = flagged("transfer_lm", nb)
    assert set(found) == {"square_mask_tests"}, f"Run all leaves the last definition; got {found}"
    assert f"added cell {len(nb.cells)}" in found["square_mask_tests"][0]


def test_bare_notebook_names_are_forbidden_where_the_contract_says_so():
    answer = (
        "def formula_parameter_count(ntoken, nhid, nlayers, nhead, nclasses):\n"
        "    return count_trainable_parameters(Model(ntoken, nhead, nhid, nlayers, nclasses))\n"
    )
    found = flagged("transfer_lm", student("transfer_lm", {"parameter_formula": answer}))
    assert set(found) == {"parameter_formula_tests"}, found
    assert len(found["parameter_formula_tests"]) == 2, "Model and count_trainable_parameters are both named"


def test_hostile_cells_do_not_stop_the_check():
    deep = "x = y" + ".a" * 2000 + "\n"  # compiles, but is deeper than a recursive walk survives
    answer = deep + (
        "def generate_square_subsequent_mask(size):\n    return nn.Transformer.generate_square_subsequent_mask(size)\n"
    )
    nb = student("transfer_lm", {"square_mask": answer}, [(3, "def broken(:\n"), (3, "(" * 150 + ")" * 150)])
    found = flagged("transfer_lm", nb)
    assert set(found) == {"square_mask_tests"}, found


# --- rules come from the source; penalties -------------------------------------------------------------------


def test_rules_are_read_from_the_source_not_the_submission(tmp_path):
    shortcut = mutation.shortcut_answers(default().assignment("transfer_lm"))[0]
    nb = student("transfer_lm", {shortcut.replaces: shortcut.code})
    for cell in nb.cells:
        cell.metadata.pop("course", None)  # the student deleted the declarations
    path = tmp_path / "transfer_lm.ipynb"
    path.write_text(nbformat.writes(nb))
    found = nbgrader_door.shortcut_findings(default().assignment("transfer_lm"), path)
    assert [f.cell for f in found] == [shortcut.question], (
        f"the nbgrader door reads the file as the standalone door does and the source's rules; got {found}"
    )


def _full_marks(assignment):
    question_list = default().assignment(assignment).questions
    tests = [
        TestResult(f"test_{q.grade_id}", q.grade_id, q.points, q.points, "passed")
        for q in question_list
        if q.kind == "autograded"
    ]
    return SubmissionResult("someone", assignment, "standalone", questions=score_questions(question_list, tests))


def test_zero_penalty_zeroes_only_that_question():
    shortcut = mutation.shortcut_answers(default().assignment("transfer_lm"))[0]
    nb = student("transfer_lm", {shortcut.replaces: shortcut.code})
    result = _full_marks("transfer_lm")
    before = result.scores()
    result.findings = shortcuts.check(nb, owners("transfer_lm"), rules("transfer_lm", "zero"))
    model.apply_penalties(result)
    after = result.scores()
    assert after[shortcut.question] == 0, f"{shortcut.question} should score 0 under the zero penalty"
    assert {q: p for q, p in after.items() if q != shortcut.question} == {
        q: p for q, p in before.items() if q != shortcut.question
    }, "other questions must keep their points"
    assert [f.severity for f in result.findings] == ["error"] and "scores 0" in result.findings[0].message

    kept = _full_marks("transfer_lm")
    kept.findings = shortcuts.check(nb, owners("transfer_lm"), rules("transfer_lm"))
    model.apply_penalties(kept)
    assert kept.scores() == before and [f.severity for f in kept.findings] == ["warning"], (
        "flag only: a warning, and the score is unchanged"
    )


def test_feedback_and_class_report_show_the_finding():
    shortcut = mutation.shortcut_answers(default().assignment("transfer_lm"))[0]
    result = _full_marks("transfer_lm")
    result.findings = shortcuts.check(
        student("transfer_lm", {shortcut.replaces: shortcut.code}), owners("transfer_lm"), rules("transfer_lm")
    )
    markdown = feedback_markdown(result)
    # The notebook's heading above the cell, as the feedback writes any text: escaped to read literally.
    title = markdown_inline(question_title("transfer_lm", "square_mask_tests"))
    section = markdown.split(f"## {title}:")[1].split("\n## ")[0]
    assert "**Shortcut**" in section and "generate_square_subsequent_mask" in section, (
        f"the finding belongs under its question in the feedback; got:\n{section}"
    )
    assert "<strong>Shortcut</strong>" in feedback_html(result)
    report = summary_markdown([result, _full_marks("transfer_lm")])
    assert "## Shortcuts" in report and f"| {title} | 1 | 0 | someone |" in report, report


# --- end to end ------------------------------------------------------------------------------------------


@pytest.mark.course
def test_standalone_door_flags_a_helper_and_applies_the_zero_penalty(tmp_path):
    """One real grading: the answer calls a helper in an added cell that returns PyTorch's own mask. The
    hidden tests pass it; the zero penalty takes the question's points and nothing else's."""
    from assignments.grading.doors.standalone import grade_submission

    answer = "def generate_square_subsequent_mask(size):\n    return causal(size)\n"
    helper = "def causal(size):\n    return nn.Transformer.generate_square_subsequent_mask(size)\n"
    nb = student("transfer_lm", {"square_mask": answer}, [(3, helper)])
    path = tmp_path / "transfer_lm.ipynb"
    path.write_text(nbformat.writes(nb))
    result = grade_submission(
        default().assignment("transfer_lm"), path, "shortcut", shortcut_rules=rules("transfer_lm", "zero")
    )
    square = result.question("square_mask_tests")
    assert square.tests and all(t.outcome == "passed" for t in square.tests), (
        f"the wrapped oracle passes the hidden tests (that is the point): {[t.message for t in square.tests]}"
    )
    assert square.points == 0, "the zero penalty must take the question's points"
    others = [q for q in result.questions if q.kind == "autograded" and q.grade_id != "square_mask_tests"]
    assert all(q.points == q.max_points for q in others), (
        f"every other question keeps full marks: {[(q.grade_id, q.points) for q in others if q.points != q.max_points]}"
    )
    found = [f for f in result.findings if f.code == shortcuts.CODE]
    assert [(f.cell, f.severity) for f in found] == [("square_mask_tests", "error")], result.findings
    assert "`causal`" in found[0].message and "added cell 4" in found[0].message, found[0].message
    assert "**Shortcut**" in feedback_markdown(result)
    title = markdown_inline(question_title("transfer_lm", "square_mask_tests"))
    assert f"| {title} | 1 | 1 | shortcut |" in summary_markdown([result])
