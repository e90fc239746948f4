"""The class report's two figures, drawn with matplotlib's Agg backend (no display needed).

- ``histogram_figure``: one panel per question that has a score (a written question nobody has graded
  yet gets no panel; the summary lists it), plus the autograded total of every submission. Panel titles
  are the questions' titles, wrapped to the panel's width; the layout engine places titles, labels and
  the figure's title so that none overlaps another, whatever the class size.
- ``item_analysis_figure``: per question, a horizontal bar of its difficulty (mean score / max, 0 to 1)
  beside one of its discrimination (correlation of its score with the rest of the total, -1 to 1), one
  row per question with its title, so a long list of questions stays readable.

Every text on them is the course's (question titles, the assignment's name) and matplotlib draws it as
plain text: mathtext is off for each label, so a ``$`` in a title is not a formula.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

from assignments.exports.item_analysis import QuestionStats
from assignments.points import points_text

PANEL_COLUMNS = 3
TITLE_CHARS = 34  # a panel title's line, at the panel's width
LABEL_CHARS = 40  # a question's label in the item-analysis figure
AUTOGRADED, WRITTEN, TOTAL = "#4c72b0", "#dd8452", "#55a868"
LOW_DISCRIMINATION = 0.2  # below this a question separates students weakly (drawn in grey; the doc says why)
WEAK, NEGATIVE = "lightgray", "#c44e52"
MAX_TICKS = 13  # a tick under every bin up to this many bins


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _wrapped(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False)) or " "


def _bins(maximum: float, found: list[float]) -> tuple[list[float], float]:
    """Bin edges centred on the scores a question can give (halves up to 5 points, whole points up to 20,
    whole numbers of points making about twenty bins beyond), and the bin width."""
    top = max(maximum, max(found, default=0.0), 1.0)
    step = 0.5 if top <= 5 else (1.0 if top <= 20 else float(math.ceil(top / 20)))
    count = int(math.ceil(top / step)) + 1
    return [(i - 0.5) * step for i in range(count + 1)], step


def histogram_figure(panels: list[tuple[str, str, float, list[float]]], title: str):
    """The histogram figure for ``panels`` (title, kind, max points, scores); panels without a score are
    left out. Returns the matplotlib figure (the caller saves and closes it)."""
    plt = _pyplot()
    drawn = [panel for panel in panels if panel[3]]
    columns = max(1, min(PANEL_COLUMNS, len(drawn)))
    rows = max(1, math.ceil(len(drawn) / columns))
    fig, axes = plt.subplots(
        rows, columns, figsize=(4.4 * columns, 3.3 * rows + 0.6), squeeze=False, layout="constrained"
    )
    for ax in axes.flat[len(drawn) :]:
        ax.remove()
    for ax, (name, kind, maximum, found) in zip(axes.flat, drawn):
        edges, step = _bins(maximum, found)
        color = TOTAL if kind == "total" else (WRITTEN if kind == "manual" else AUTOGRADED)
        ax.hist(found, bins=edges, rwidth=0.85, color=color)
        ax.set_title(
            f"{_wrapped(name, TITLE_CHARS)}\nmax {points_text(maximum)}, n = {len(found)}", fontsize=9, parse_math=False
        )
        ax.set_xlabel("points")
        ax.set_ylabel("students")
        ax.set_xlim(edges[0], edges[-1])
        centres = [(a + b) / 2 for a, b in zip(edges, edges[1:])]
        if len(centres) <= MAX_TICKS:
            ax.set_xticks(centres, [points_text(c) for c in centres])
        ax.yaxis.get_major_locator().set_params(integer=True)
    if not drawn:
        ax = axes.flat[0]
        ax.set_axis_off()
        ax.text(0.5, 0.5, "no scores yet", transform=ax.transAxes, ha="center", va="center", color="gray")
    fig.suptitle(title, fontsize=11, parse_math=False)
    return fig


def item_analysis_figure(stats: list[QuestionStats], titles: dict[str, str], title: str):
    """Difficulty and discrimination per question (questions without a score left out), one row each;
    a discrimination below ``LOW_DISCRIMINATION`` is grey, a negative one red."""
    plt = _pyplot()
    shown = [s for s in stats if s.difficulty is not None]
    rows = max(1, len(shown))
    fig, (easy, separates) = plt.subplots(1, 2, sharey=True, figsize=(11, 1.2 + 0.42 * rows), layout="constrained")
    positions = list(range(len(shown)))[::-1]  # the first question at the top
    labels = [_wrapped(titles.get(s.grade_id, s.grade_id), LABEL_CHARS) for s in shown]
    colors = [WRITTEN if s.kind == "manual" else AUTOGRADED for s in shown]
    easy.barh(positions, [s.difficulty for s in shown], color=colors)
    easy.set_xlim(0, 1)
    easy.set_xlabel("difficulty: mean score / max (1 = everyone full marks)")
    easy.set_yticks(positions, labels, fontsize=8)
    for label in easy.get_yticklabels():
        label.set_parse_math(False)
    values = [s.discrimination if s.discrimination is not None else 0.0 for s in shown]
    shades = [_shade(s.discrimination, color) for s, color in zip(shown, colors)]
    separates.barh(positions, values, color=shades)
    separates.axvline(0, color="black", linewidth=0.8)
    separates.axvline(LOW_DISCRIMINATION, color="gray", linewidth=0.8, linestyle=":")
    separates.set_xlim(-1, 1)
    separates.set_xlabel("discrimination: r(question, total without it)")
    for position, stat in zip(positions, shown):
        if stat.discrimination is None:
            separates.text(0.02, position, "n/a", va="center", fontsize=8, color="gray")
    if not shown:
        easy.text(0.5, 0.5, "no scores yet", transform=easy.transAxes, ha="center", va="center", color="gray")
    from matplotlib.patches import Patch

    legend = [
        Patch(color=AUTOGRADED, label="autograded"),
        Patch(color=WRITTEN, label="written"),
        Patch(color=WEAK, label=f"discrimination below {LOW_DISCRIMINATION:g}"),
        Patch(color=NEGATIVE, label="negative discrimination"),
    ]
    fig.legend(handles=legend, loc="outside lower center", ncols=4, fontsize=8, frameon=False)
    fig.suptitle(title, fontsize=11, parse_math=False)
    return fig


def _shade(discrimination: float | None, color: str) -> str:
    if discrimination is not None and discrimination < 0:
        return NEGATIVE
    if discrimination is None or discrimination < LOW_DISCRIMINATION:
        return WEAK
    return color


def save(fig, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    _pyplot().close(fig)
    return path
