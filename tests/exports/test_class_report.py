"""The class report at class scale (issue #45, item 6): a synthetic class of 800 students shaped like
rnn_attention (tests/fixtures/class_results.py: its 19 questions and titles, 7 written questions' evidence,
5,600 evidence entries), written by ``report.write_report`` and read back.

- summary.md names every question by its title and does not grow with the class: no student's row in it;
- each student's scores, findings and evidence are on a page of their own, linked from an index;
- the histograms have no empty panel (a written question nobody graded is listed instead) and, drawn by
  matplotlib's own renderer, no title, label or tick label overlaps another or another panel;
- difficulty (mean / max) and discrimination (correlation with the rest of the total) match an
  independent computation, find the planted questions, and are what the second figure plots.
"""

from __future__ import annotations

import statistics
import time

import numpy
import pytest

from assignments.escaping import markdown_inline
from assignments.exports import report, report_figures
from assignments.exports.item_analysis import question_stats
from tests.fixtures import class_results

STUDENTS = 800


@pytest.fixture(scope="module")
def records():
    return class_results.synthetic_class(STUDENTS)


# The tests that read the written report run on one worker (`--dist loadgroup`): it is written once (about
# 6 s of CPU), not on each worker that got one of them.
ON_WRITTEN = pytest.mark.xdist_group("class_report_written")


@pytest.fixture(scope="module")
def written(records, tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    began = time.monotonic()
    files = report.write_report(records, folder, class_results.ASSIGNMENT)
    return folder, files, time.monotonic() - began


@ON_WRITTEN
def test_the_report_of_800_students_is_written_in_seconds(written):
    _, files, seconds = written
    assert len(files) == 3 + 1 + STUDENTS, "summary, two figures, the index and a page per student"
    assert seconds < 60, f"writing the report of {STUDENTS} students took {seconds:.0f} s"


@ON_WRITTEN
def test_the_summary_names_questions_by_title_and_has_no_row_per_student(written, records):
    folder, _, _ = written
    text = (folder / "summary.md").read_text()
    names = report.titles(records, class_results.ASSIGNMENT)
    missing = [t for t in names.values() if f"| {markdown_inline(t)} |" not in text]
    assert not missing, f"questions not named by their titles: {missing}"
    assert names["gru_cell_tests"] == "Part 1. A gated recurrent unit", names  # the notebook's heading
    assert len(text.splitlines()) < 120, f"summary.md has {len(text.splitlines())} lines for {STUDENTS} students"
    assert not [r.student for r in records if r.student in text], "no student's row belongs in the summary"
    ungraded = markdown_inline(names[class_results.UNGRADED])
    assert f"Not graded yet (no panel below): {ungraded}." in text


@ON_WRITTEN
def test_each_student_has_a_page_with_their_own_evidence(written, records):
    folder, _, _ = written
    pages = folder / report.STUDENTS
    index = (pages / "index.md").read_text()
    assert all(f"[{r.student}]({r.student}.md)" in index for r in records), "the index links every student"
    someone = next(r for r in records if r.status == "graded" and r.evidence)
    page = (pages / report.page_name(someone.student)).read_text()
    assert len(someone.evidence) == 8, "one evidence cell per written question of rnn_attention with one"
    for item in someone.evidence:
        assert f"cell {markdown_inline(item.cell)}" in page, f"{item.cell} missing from {someone.student}'s page"
    assert "| Part 1. A gated recurrent unit | autograded |" in page
    others = [r.student for r in records if r.student != someone.student]
    assert not [s for s in others if f"{s}" in page], "a page holds one student's detail"


def panel_axes(fig):
    return [ax for ax in fig.axes if ax.get_visible() and ax.axison]


def test_no_histogram_panel_is_empty(records):
    stats = question_stats(records)
    names = report.titles(records, class_results.ASSIGNMENT)
    fig = report.histogram_figure(records, class_results.ASSIGNMENT, stats, names)
    try:
        axes = panel_axes(fig)
        scored = [s for s in stats if s.scores]
        assert len(axes) == len(scored) + 1, "a panel per question with a score, and the total"
        for ax, stat in zip(axes, scored + [None]):
            counted = sum(bar.get_height() for bar in ax.patches)
            expected = stat.graded if stat else STUDENTS
            assert counted == expected, f"{ax.get_title()!r}: bars add up to {counted}, not {expected}"
        shown = " ".join(ax.get_title() for ax in axes)
        assert "Your captions" not in shown, "the question nobody graded has no panel"
    finally:
        close(fig)


def close(fig) -> None:
    import matplotlib.pyplot as plt

    plt.close(fig)


def overlapping_texts(fig) -> list[tuple[str, str]]:
    """Pairs of texts (titles, axis labels, tick labels, legend entries, notes) whose drawn boxes overlap,
    and texts that overlap another panel's plot area, as matplotlib's renderer lays the figure out."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [("figure title", None, fig._suptitle)] if fig._suptitle else []
    for legend in fig.legends:
        texts += [(f"legend {t.get_text()!r}", None, t) for t in legend.get_texts()]
    areas = []
    for number, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        areas.append((f"panel {number}'s plot area", ax, ax.get_window_extent(renderer)))
        owned = [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        owned += [t for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_visible()]
        texts += [(f"panel {number} {t.get_text()[:40]!r}", ax, t) for t in owned if t.get_text().strip()]
    boxes = [(name, ax, text.get_window_extent(renderer)) for name, ax, text in texts]
    corners = numpy.array([[b.x0, b.y0, b.x1, b.y1] for _, _, b in boxes])
    found = []
    for i, (name, ax, box) in enumerate(boxes):  # one row against the rest at once: 400 texts, 80,000 pairs
        later = corners[i + 1 :]
        wide = numpy.minimum(box.x1, later[:, 2]) - numpy.maximum(box.x0, later[:, 0])
        high = numpy.minimum(box.y1, later[:, 3]) - numpy.maximum(box.y0, later[:, 1])
        found += [(name, boxes[i + 1 + j][0]) for j in numpy.flatnonzero((wide > 1) & (high > 1))]
        for area_name, area_ax, area in areas:
            if ax is not area_ax and min(box.x1, area.x1) - max(box.x0, area.x0) > 1:
                if min(box.y1, area.y1) - max(box.y0, area.y0) > 1:
                    found.append((name, area_name))
    return found


def test_no_title_or_label_overlaps_at_800_students(records):
    stats = question_stats(records)
    names = report.titles(records, class_results.ASSIGNMENT)
    figures = {
        "histograms": report.histogram_figure(records, class_results.ASSIGNMENT, stats, names),
        "item analysis": report_figures.item_analysis_figure(stats, names, "rnn_attention: difficulty"),
    }
    for name, fig in figures.items():
        found = overlapping_texts(fig)
        close(fig)
        assert not found, f"{name}: {len(found)} overlapping texts, e.g. {found[:5]}"


def test_difficulty_and_discrimination_per_question_are_computed_and_plotted(records):
    stats = {s.grade_id: s for s in question_stats(records)}
    graded = [r for r in records if r.status == "graded"]
    # an independent computation of one question's figures (Python's own statistics.correlation)
    question = "additive_attention_tests"
    own = [r.question(question).points for r in graded]
    rest = [sum(q.points for q in r.questions if q.points is not None) - r.question(question).points for r in graded]
    assert stats[question].difficulty == pytest.approx(statistics.fmean(own) / 3.0)
    assert stats[question].discrimination == pytest.approx(statistics.correlation(own, rest))
    assert stats[class_results.BACKWARDS].discrimination < -0.3, "stronger students do worse on the planted question"
    assert (
        stats[class_results.EVERYONE_FULL].difficulty == 1.0
        and stats[class_results.EVERYONE_FULL].discrimination is None
    )
    assert stats[class_results.UNGRADED].difficulty is None and not stats[class_results.UNGRADED].scores
    good = [
        s.discrimination
        for s in stats.values()
        if s.discrimination is not None and s.grade_id != class_results.BACKWARDS
    ]
    assert min(good) > 0.3, "every other question separates the synthetic class's strong and weak students"

    shown = [s for s in stats.values() if s.difficulty is not None]
    fig = report_figures.item_analysis_figure(list(stats.values()), report.titles(records, "rnn_attention"), "t")
    try:
        easy, separates = fig.axes[:2]
        assert [bar.get_width() for bar in easy.patches] == pytest.approx([s.difficulty for s in shown])
        widths = [bar.get_width() for bar in separates.patches]
        assert widths == pytest.approx([s.discrimination or 0.0 for s in shown])
        rows = zip(easy.get_yticks(), (label.get_text() for label in easy.get_yticklabels()))
        assert max(rows)[1] == "Part 1. A gated recurrent unit", "the first question is the top row"
    finally:
        close(fig)
