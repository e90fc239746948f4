"""The similarity report: copies rank far above honest work, starter code never counts, the page is safe.

The class is built from the committed transformers notebooks: the reference (release + solution), a
disguised copy of it (locals renamed, re-printed from the syntax tree), the same copy pasted into a fresh
Colab notebook (no nbgrader metadata), students with one known mistake (mutants), a student whose answers
were written independently (``tests/fixtures/similarity``, each passing its hidden tests), the
untouched release, and a copy with markup in an answer.
"""

from __future__ import annotations

import copy
import json
import zipfile

import nbformat
import pytest

from assignments import cli, notebooks
from assignments.course import default
from assignments.demo import students as demo_class
from assignments.grading.doors.inprocess import execute_cells, grade_namespace
from assignments.grading.selftest import mutation
from assignments.similarity import compare as similarity
from assignments.similarity import report as similarity_report
from tests.fixtures.similarity import ASSIGNMENT, independent_answers, renamed
from tests.helpers import write_folder

HW = default().assignment(ASSIGNMENT)

SCRIPT = "<script>alert('copied')</script>"


def renamed_notebook(nb, answers):
    disguised = copy.deepcopy(nb)
    for cell in disguised.cells:
        if notebooks.grade_id(cell) in answers:
            cell.source = renamed(cell.source)
    return disguised


@pytest.fixture(scope="module")
def questions():
    return similarity.context(HW).questions


@pytest.fixture(scope="module")
def mutants():
    """Three mutants of different questions whose text differs from the reference's once names are
    normalised: a mutant that only reads another variable (an attention dropout built with the other rate)
    is the same token stream as the reference, which is what a rename-proof comparison must conclude."""
    reference = {notebooks.grade_id(c): c.source for c in demo_class.filled_release(HW).cells}
    chosen, questions = [], set()
    for mutant in mutation.mutants(HW):
        tokens = similarity.tokens(mutant.code)[0]
        if mutant.question in questions or tokens == similarity.tokens(reference[mutant.replaces])[0]:
            continue
        chosen.append(mutant)
        questions.add(mutant.question)
        if len(chosen) == 3:
            return chosen
    pytest.fail(f"{ASSIGNMENT} needs mutants of three questions whose text differs from the reference")


@pytest.fixture(scope="module")
def students(questions, mutants):
    reference = demo_class.filled_release(HW)
    disguised = renamed_notebook(reference, questions)
    independent = default().assignment(ASSIGNMENT).release_notebook()
    for cell in independent.cells:
        cell.source = independent_answers().get(notebooks.grade_id(cell), cell.source)
    marked = demo_class.filled_release(HW)
    answer = next(c for c in marked.cells if notebooks.grade_id(c) == "scaled_dot_product")
    answer.source = answer.source.replace(
        "    head_dim = q.size(-1)\n", f'    head_dim = q.size(-1)\n    note = "{SCRIPT}"\n'
    )
    class_ = {
        "reference": reference,
        "disguised": disguised,
        "colab": demo_class.pasted_into_colab(disguised),
        "independent": independent,
        "blank": default().assignment(ASSIGNMENT).release_notebook(),
        "marked": marked,
    }
    for mutant in mutants:
        class_[f"mutant-{mutant.name}"] = demo_class.filled_release(HW, {mutant.replaces: mutant.code})
    return class_


@pytest.fixture(scope="module")
def comparison(students, tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    paths = write_folder(students, folder, "transformers.ipynb")
    return similarity.compare_class(HW, [(name, path, "") for name, path in paths.items()], top=100, workers=1)


def pair(comparison, a, b):
    found = [p for p in comparison.pairs if {p.a, p.b} == {a, b}]
    return found[0] if found else None


def score(comparison, a, b) -> float:
    found = pair(comparison, a, b)
    return found.score if found else 0.0


def question(found, grade_id):
    return next((q for q in found.questions if q.grade_id == grade_id), None)


def question_after(nb, answers) -> list[str]:
    """The question (autograded test cell) that follows each of ``answers`` in the notebook."""
    found, pending = [], False
    for cell in nb.cells:
        if notebooks.is_answer(cell) and notebooks.grade_id(cell) in answers:
            pending = True
        elif pending and notebooks.is_autograded_test(cell):
            found.append(notebooks.grade_id(cell))
            pending = False
    return found


def test_the_independent_answers_pass_their_hidden_tests():
    """They stand for honest students, so they must be correct: run after the notebook's setup cell alone
    (imports), each question's hidden tests give full marks."""
    answers = independent_answers()
    nb = copy.deepcopy(default().assignment(ASSIGNMENT).source_notebook())
    nb.cells = [c for c in nb.cells if notebooks.grade_id(c) == "setup"] + [
        c for c in nb.cells if notebooks.grade_id(c) in answers
    ]
    for cell in nb.cells:
        cell.source = answers.get(notebooks.grade_id(cell), cell.source)
    namespace, findings = execute_cells(nb)
    assert not findings, [f.message for f in findings]
    questions = question_after(default().assignment(ASSIGNMENT).source_notebook(), answers)
    result = grade_namespace(HW, namespace, student="independent", selected=questions)
    scored = {q.grade_id: (q.points, q.max_points) for q in result.questions if q.grade_id in questions}
    assert len(scored) == len(answers) and all(points == top for points, top in scored.values()), (
        f"every independent answer should earn full marks on its question, got {scored}"
    )


def test_renaming_variables_and_reformatting_leave_the_tokens_unchanged():
    original = "def f(q, k):\n    scores = q @ k.transpose(-2, -1)  # why\n    return (scores, 1.)\n"
    disguised = "def f(a,b):\n    '''Mine.'''\n    s=(a@b.transpose(-2,-1,))\n\n    return s,1.0\n"
    assert similarity.tokens(original)[0] == similarity.tokens(disguised)[0], (
        "renamed variables, comments, a docstring, layout and tuple parentheses should not change the tokens"
    )
    assert ".transpose" in similarity.tokens(original)[0], "the library API called should stay in the tokens"


def test_a_half_written_answer_still_has_tokens():
    texts, lines = similarity.tokens("def f(x:\n    y = torch.softmax(x, dim=-1)\n")
    assert ".softmax" in texts and set(lines) == {2}, f"expected line 2's tokens to survive, got {texts}"


def test_any_shared_passage_of_the_guaranteed_length_shares_a_fingerprint():
    passage = " ".join(f"x{i} = y.attr{i}(z, {i});" for i in range(10))
    texts = similarity.tokens(passage)[0][: similarity.K + similarity.WINDOW - 1]
    assert len(texts) == similarity.K + similarity.WINDOW - 1
    for before, after in (("a = 1\n", "b = 2\n"), ("while c:\n    pass\n", "")):
        first = similarity.winnow(similarity.kgram_hashes(similarity.tokens(before)[0] + texts))
        second = similarity.winnow(similarity.kgram_hashes(texts + similarity.tokens(after)[0]))
        assert first & second, "a passage of K + WINDOW - 1 tokens in two answers must yield a shared fingerprint"


def test_a_disguised_copy_ranks_first_and_far_above_independent_correct_answers(comparison):
    top = comparison.pairs[0]
    assert {top.a, top.b} <= {"reference", "disguised", "colab", "marked"} and top.score > 0.9, (
        f"expected a copy of the reference at the top with a score above 0.9, got {top.a}/{top.b} {top.score:.2f}"
    )
    copied = pair(comparison, "reference", "disguised")
    honest = pair(comparison, "reference", "independent")
    assert copied.score > 0.95, f"the renamed copy should score near 1, got {copied.score:.2f}"
    assert score(comparison, "reference", "independent") < 0.1, (
        f"independent answers should barely overlap the reference, got {honest.score if honest else 0:.2f}"
    )
    for grade_id in independent_answers():
        mine = question(copied, grade_id)
        theirs = question(honest, grade_id) if honest else None
        honest_score = theirs.jaccard if theirs else 0.0
        assert mine.jaccard > 0.9 and honest_score < 0.25, (
            f"{grade_id}: the renamed copy should score above 0.9 (got {mine.jaccard:.2f}) and the "
            f"independent answer below 0.25 (got {honest_score:.2f})"
        )


def test_mutants_rank_high_as_near_copies_and_differ_on_their_own_question(comparison, mutants):
    copied = score(comparison, "reference", "disguised")
    for mutant in mutants:
        found = pair(comparison, "reference", f"mutant-{mutant.name}")
        own = question(found, mutant.replaces)
        others = [q.jaccard for q in found.questions if q.grade_id != mutant.replaces]
        assert 0.6 < found.score < copied, (
            f"{mutant.name} shares every other answer: expected a score between 0.6 and the copy's "
            f"{copied:.2f}, got {found.score:.2f}"
        )
        assert own.jaccard < 0.9 and own.jaccard < min(others), (
            f"{mutant.name}: its own question {mutant.replaces} should be the least similar "
            f"({own.jaccard:.2f}; others from {min(others):.2f})"
        )
    family = {"reference", "disguised", "colab", "marked"} | {f"mutant-{m.name}" for m in mutants}
    first_honest = next(rank for rank, p in enumerate(comparison.pairs) if "independent" in (p.a, p.b))
    assert (
        all({p.a, p.b} <= family for p in comparison.pairs[:first_honest])
        and first_honest == len(family) * (len(family) - 1) // 2
    ), "every pair of near copies should rank above every pair with the independent student"


def test_a_copy_pasted_into_a_fresh_colab_notebook_still_compares(comparison):
    assert score(comparison, "reference", "colab") > 0.95, (
        "answer cells without nbgrader metadata should be recovered by content and compared"
    )


def test_the_skeleton_alone_scores_zero(comparison, questions):
    ctx = similarity.context(HW)
    for cell in default().assignment(ASSIGNMENT).release_notebook().cells:
        if notebooks.grade_id(cell) in questions:
            assert not similarity.fingerprints(cell.source, ctx.starter), (
                f"the skeleton of {notebooks.grade_id(cell)} should leave no fingerprint"
            )
    blank = [p for p in comparison.pairs if "blank" in (p.a, p.b)]
    assert not blank, f"the untouched release should share nothing with anyone, got {blank[:2]}"
    assert comparison.nearest().get("blank") is None


def test_unreadable_foreign_and_oversized_notebooks_are_reported_and_the_class_goes_on(tmp_path):
    ctx = similarity.context(HW)
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json")
    foreign = tmp_path / "foreign.ipynb"
    foreign.write_text(nbformat.writes(default().assignment("rnn_attention").release_notebook()))
    huge = demo_class.filled_release(HW)
    answer = next(c for c in huge.cells if notebooks.grade_id(c) == "binary_accuracy")
    answer.source += "\n".join(f"x{i} = {i}" for i in range(20_000))
    oversized = tmp_path / "huge.ipynb"
    oversized.write_text(nbformat.writes(huge))
    for path, expected in ((broken, "JSON"), (foreign, "graded cells")):
        student = similarity.fingerprint_student(path.stem, path, ctx)
        assert student.problem and expected in student.problem and not student.prints, (
            f"{path.name}: expected a problem mentioning {expected!r}, got {student.problem!r}"
        )
    student = similarity.fingerprint_student("huge", oversized, ctx)
    assert student.problem is None and len(student.answers["binary_accuracy"]) == similarity.MAX_ANSWER_CHARS
    assert any("binary_accuracy" in note for note in student.notes), student.notes


def test_the_report_escapes_student_code_and_highlights_shared_lines(comparison, tmp_path):
    page, data = similarity_report.write_report(comparison, tmp_path, top=100)
    text = page.read_text()
    assert SCRIPT not in text and "<script" not in text.lower(), "student text must never reach the page as markup"
    assert "&lt;script&gt;alert(&#x27;copied&#x27;)&lt;/script&gt;" in text, (
        "the student's line should be shown, escaped"
    )
    assert 'class="line shared"' in text, "shared lines should be highlighted"
    report = json.loads(data.read_text())
    assert report["pairs"][0]["score"] > 0.9 and report["pairs"][0]["questions"][0]["lines_a"], (
        "the JSON should carry the ranked pairs with their shared lines"
    )
    assert report["nearest"]["blank"] is None and report["nearest"]["independent"]["score"] < 0.1


def test_course_similarity_runs_end_to_end_on_a_canvas_zip(students, tmp_path, capsys):
    chosen = {name: students[name] for name in ("reference", "disguised", "independent", "blank")}
    download = tmp_path / "download.zip"
    files = demo_class.write_canvas_zip(HW, chosen, download)
    with zipfile.ZipFile(download, "a") as archive:  # a file that is not a notebook is reported, not compared
        archive.writestr("broken_999_1_transformers.ipynb", "{not json")
    out = tmp_path / "report"
    assert cli.main(["similarity", ASSIGNMENT, str(download), "--out", str(out), "--top", "3", "--workers", "2"]) == 0
    printed = capsys.readouterr().out
    ids = {name: files[name].split("_")[1] for name in chosen}
    report = json.loads((out / "similarity.json").read_text())
    assert {report["pairs"][0]["a"], report["pairs"][0]["b"]} == {ids["reference"], ids["disguised"]}, (
        f"the copy should rank first: {report['pairs'][0]}"
    )
    assert (out / "similarity.html").is_file() and "similarity.html" in printed
    first_row = next(line for line in printed.splitlines() if line.startswith("1 "))
    assert ids["reference"] in first_row and ids["disguised"] in first_row, f"table row: {first_row!r}"
