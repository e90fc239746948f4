"""Claims and their sources (assignments/release/claims.py, issue #34): what the check reads as a claim, what
makes a footnote complete, that `course release` refuses a toy assignment with an unsourced claim and lets
the sourced one through, and that every assignment the release enforces is clean."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from assignments import cli, release
from assignments.course import REPO, Course, default
from assignments.release import claims
from tests.helpers import nbgrader_meta as meta


def kinds(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(claim.kind, claim.markers) for claim in claims.claims_in(text)]


# --- what counts as a claim ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence, kind",
    [
        # the issue's own examples (#34, item 1)
        ("Fine-tuning the top blocks, accuracy on IMDB rises to about 93-94%.", "a percentage"),
        ("The head has few weights against a few thousand reviews.", "an approximate quantity"),
        ("For a small model the sinusoids work as well.", "a general finding"),
        ("After pre-training some heads typically look at the neighbouring words.", "a general finding"),
        ("Say why the transformer decoder is faster\nto train.", "a general finding"),
        # durations, sizes and ratios
        ("On Colab's CPU the cell takes 12 min.", "a duration"),
        ("Pre-training takes about two hours on a CPU.", "a duration"),
        ("The notebook downloads 1 GB.", "a memory size"),
        ("Freezing is three times faster.", "a ratio"),
    ],
)
def test_a_sentence_that_states_a_figure_or_a_finding_is_a_claim(sentence, kind):
    assert kinds(sentence) == [(kind, ())]


@pytest.mark.parametrize(
    "text",
    [
        "Would you expect the gap to grow with ten times as many reviews?",  # a question claims nothing
        "The ones that fail are short.",  # a number word inside a word is no duration
        "A general formula 3·(IH + H² + 2H) counts them.",  # a formula's 2H is no duration
        "Run `train(epochs=5, minutes=3)` and compare.",  # inline code is not read
        "```\ntakes 40 minutes\n```",  # nor fenced code
        "The mask is $0$ on the diagonal and $-\\infty$ above it; 1 point for the mask.",
        "[the notebook](https://example.org/runs-in-5-minutes)",  # a link target is no claim
    ],
)
def test_questions_code_formulas_and_words_that_merely_contain_a_unit_are_not_claims(text):
    assert kinds(text) == []


def test_a_sentence_carries_its_own_markers_and_abbreviations_do_not_end_it():
    text = "Haviv et al. found a gap of about 1%[^haviv2022]. The next run takes 5 min."
    assert kinds(text) == [("a percentage", ("haviv2022",)), ("a duration", ())]


def test_the_authors_flag_makes_any_sentence_a_claim():
    assert kinds("Layer norm helps deep models converge[^?].") == [("flagged by the author", ("?",))]


# --- footnotes -----------------------------------------------------------------------------------------

CELLS = {"transfer_run", "setup"}


def problems(*texts: tuple[str, bool]) -> list[str]:
    items = [claims.Text(f"cell {i}", text, staff) for i, (text, staff) in enumerate(texts)]
    return claims.check_texts(items, CELLS, REPO)


@pytest.mark.parametrize(
    "definition, expected",
    [
        ('[^a]: Smith (2020), "A title", a venue. Setting: a 2-layer LSTM on IMDB.', []),
        (
            '[^a]: Smith, "A title", a venue. Setting: a 2-layer LSTM on IMDB.',
            ["a citation gives the year of the work"],
        ),
        ('[^a]: Smith (2020), "A title", a venue.', ["a citation states its setting after 'Setting:'"]),
        ("[^a]: Measured: cell transfer_run in student mode, offline synthetic data, seeds 0 to 4, CPU.", []),
        (
            "[^a]: Measured: cell transfer_rn in student mode, offline synthetic data, seeds 0 to 4.",
            ["names cell 'transfer_rn', which the notebook does not have"],
        ),
        ("[^a]: Measured: benchmarks/student_cpu.py, one thread of a 2-core x86-64 machine.", []),
        (
            "[^a]: Measured: benchmarks/no_such_script.py, one thread of a 2-core x86-64 machine.",
            ["names benchmarks/no_such_script.py, which is not a file of the repository"],
        ),
        ("[^a]: Measured: cell transfer_run.", ["a Measured: source states its conditions"]),
        (  # "cell" as a plain word names no cell
            "[^a]: Measured: benchmarks/student_cpu.py, every cell of the notebook in student mode, seed 0, CPU.",
            [],
        ),
        (
            "[^a]: Measured: on my laptop, seed 0, last week, in student mode.",
            ["a Measured: source names what measured it"],
        ),
        ("[^a]: Derived: sqrt(0.5 × 0.5 / 1066) = 0.0153.", []),
        ("[^a]: Derived: from the table.", ["a Derived: source writes out its arithmetic"]),
        ("[^a]: Estimate: the course staff's, from answer lengths and points per section.", []),
        ("[^a]: Estimate: ours.", ["an Estimate: says whose estimate it is and what it rests on"]),
    ],
)
def test_each_kind_of_footnote_says_what_it_must(definition, expected):
    found = problems((f"It takes 5 min[^a].\n\n{definition}", False))
    assert len(found) == len(expected), found
    for line, wanted in zip(found, expected):
        assert line.startswith("cell 0: footnote [^a]: " + wanted), line


def test_continuation_lines_belong_to_their_footnote():
    text = 'It takes 5 min[^a].\n\n[^a]: Smith (2020), "A title".\n  Setting: a 2-layer LSTM on IMDB.'
    assert problems((text, False)) == []


def test_markers_resolve_across_cells_but_students_never_see_a_staff_only_definition():
    student = "Pre-training takes 12 min[^cpu]."
    staff_answer = "Close to the same perplexity, about 2% worse[^cpu].\n\n[^cpu]: Smith (2020). Setting: LSTMs."
    assert problems((student, False), (staff_answer, True)) == [
        "cell 0: footnote [^cpu] is defined in cell 1, which students do not see: define it in a cell they see"
    ]
    # the other way round is fine: a written answer may cite the sources cell
    assert (
        problems(
            ("Pre-training takes 12 min[^cpu].\n\n[^cpu]: Smith (2020). Setting: LSTMs.", False),
            ("About 2% worse[^cpu].", True),
        )
        == []
    )


def test_unsourced_undefined_duplicate_unused_and_flagged():
    found = problems(
        ("It takes 5 min. It takes 6 min[^nowhere]. Position helps[^?].", False),
        ("[^a]: Smith (2020). Setting: x.\n[^a]: Jones (2021). Setting: y.", False),
    )
    assert found == [
        "cell 1: footnote [^a] is defined twice (first in cell 1)",
        "cell 0: footnote [^nowhere] has no definition (a '[^nowhere]: ...' line)",
        "cell 0: source needed ([^?]): 'Position helps[^?].'",
        "cell 0: unsourced claim (a duration): 'It takes 5 min.'; put a footnote [^key] in that sentence and define "
        "it (measured, derived, estimate or cited)",
        "cell 1: footnote [^a] is defined but never used",
    ]


# --- the real sources ----------------------------------------------------------------------------------


@pytest.mark.parametrize("assignment", [a for a in default().order if a not in claims.NOT_YET_ENFORCED])
def test_every_claim_of_an_enforced_source_is_sourced(assignment):
    found = claims.check_assignment(default().assignment(assignment), default().display)
    assert not found, "\n".join(found) + f"\n(`course claims {assignment}` lists these)"


def test_only_catalog_assignments_wait_for_their_annotation():
    assert set(claims.NOT_YET_ENFORCED) <= set(default().order)


# --- the release of a toy course -----------------------------------------------------------------------


def toy_course(root: Path, prose: str) -> Course:
    """A course of one assignment whose prose cell says ``prose``; its release stops at hygiene if it must."""
    (root / "source" / "toy").mkdir(parents=True)
    for config in ("pyproject.toml", "nbgrader_config.py"):
        shutil.copy(REPO / config, root / config)
    cells = [
        new_markdown_cell("# Toy", metadata=meta("colab_badge", locked=True)),
        new_code_cell('print("GPU: none (CPU only)")', metadata=meta("setup", locked=True)),
        new_markdown_cell(prose, metadata=meta("prose", locked=True)),
        new_code_cell(
            "def f(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION", metadata=meta("f", solution=True)
        ),
        new_code_cell("assert f(1) == 1", metadata=meta("f_tests", grade=True, locked=True, points=1)),
    ]
    nb = new_notebook(cells=cells)
    (root / "source" / "toy" / "toy.ipynb").write_text(nbformat.writes(nb), encoding="utf-8")
    return Course(root)


UNSOURCED = "Training takes about 20 minutes on Colab's CPU."
SOURCED = (
    UNSOURCED.replace(".", "[^cpu].") + "\n\n[^cpu]: Measured: benchmarks/student_cpu.py, one thread of a "
    "2-core x86-64 machine, scaled by 1.9 to Colab's CPU runtime."
)


def test_release_refuses_an_unsourced_claim_and_names_it(tmp_path, capsys):
    toy_course(tmp_path, UNSOURCED)
    status = cli.main(["release", "--root", str(tmp_path), "toy", "--no-validate", "--no-execute"])
    out = capsys.readouterr().out
    assert status == 1, out
    assert (
        "source/toy/toy.ipynb: cell 2 (prose): unsourced claim (a duration): "
        '"Training takes about 20 minutes on Colab\'s CPU."'
    ) in out, out
    assert "release refused" in out and not (tmp_path / "release").exists()


def test_a_sourced_claim_passes_and_course_claims_lists_per_assignment(tmp_path, capsys):
    # the file a Measured: footnote names is looked up in the course's own root
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "student_cpu.py").write_text("")
    course = toy_course(tmp_path, SOURCED)
    assert release.hygiene_problems(course, ["toy"]) == []
    assert cli.main(["claims", "--root", str(tmp_path), "toy"]) == 0
    assert "every claim sourced: toy" in capsys.readouterr().out


def test_an_assignment_not_enforced_yet_is_reported_not_refused(tmp_path, capsys, monkeypatch):
    course = toy_course(tmp_path, UNSOURCED)
    monkeypatch.setitem(claims.NOT_YET_ENFORCED, "toy", "being annotated")
    assert release.hygiene_problems(course, ["toy"]) == []
    assert claims.pending_notes(course, ["toy"]) == [
        "note: toy: 1 claims problem(s), not enforced yet (being annotated); `course claims toy` lists them"
    ]
    assert cli.main(["claims", "--root", str(tmp_path), "toy"]) == 1
    assert "not enforced by the release yet: toy" in capsys.readouterr().out
