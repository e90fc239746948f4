"""Per-question statistics for the class report: how hard each question was, and whether it separates the
students who did well overall from those who did not.

- **difficulty** (classical test theory's item facility): the mean score over the maximum, 0 to 1; high
  means easy.
- **discrimination** (the corrected item-total correlation): Pearson's r between the question's score and
  the student's total *without* that question, so a question is not correlated with itself. Near 0: the
  question does not tell strong students from weak ones; negative: the stronger students did worse on
  it (a question, a test or a mark scheme to look at). None where it is undefined (fewer than three
  students, or every score, or every rest-total, the same).

Who counts: the records that were graded (a ``rejected`` upload scores 0 on everything and says nothing
about a question), and for each question the students with a score on it (a written answer not graded
yet has none). A student's total is the sum of the scores they have.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from assignments.results.model import SubmissionResult

MIN_STUDENTS = 3  # fewer than this and a correlation means nothing


@dataclass(frozen=True)
class QuestionStats:
    """One question of the class: where it is, what it is worth, how the class did."""

    grade_id: str
    kind: str  # "autograded" | "manual"
    max_points: float
    scores: tuple[float, ...]  # every graded student's score, in record order
    difficulty: float | None  # mean / max_points; None without a score or a maximum
    discrimination: float | None  # corrected item-total correlation; None where undefined

    @property
    def graded(self) -> int:
        return len(self.scores)


def question_order(results: list[SubmissionResult]) -> list[tuple[str, str, float]]:
    """(grade_id, kind, max points) of every question the records hold, in the order they first appear."""
    order: dict[str, tuple[str, float]] = {}
    for result in results:
        for question in result.questions:
            order.setdefault(question.grade_id, (question.kind, question.max_points))
    return [(grade_id, kind, maximum) for grade_id, (kind, maximum) in order.items()]


def scores(results: list[SubmissionResult], grade_id: str) -> list[float]:
    """Every score the records give ``grade_id`` (records without one, or not graded yet, left out)."""
    found = []
    for result in results:
        for question in result.questions:
            if question.grade_id == grade_id and question.points is not None:
                found.append(float(question.points))
                break
    return found


def correlation(xs: list[float], ys: list[float]) -> float | None:
    """Pearson's r of two equally long lists; None with fewer than ``MIN_STUDENTS`` pairs or no spread."""
    if len(xs) != len(ys) or len(xs) < MIN_STUDENTS:
        return None
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    dx = [x - mean_x for x in xs]
    dy = [y - mean_y for y in ys]
    sxx, syy = sum(d * d for d in dx), sum(d * d for d in dy)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return max(-1.0, min(1.0, sum(a * b for a, b in zip(dx, dy)) / math.sqrt(sxx * syy)))


def question_stats(results: list[SubmissionResult]) -> list[QuestionStats]:
    """One ``QuestionStats`` per question, in ``question_order``, over the graded records."""
    graded = [r for r in results if r.status != "rejected"]
    by_student = []
    for result in graded:
        mine = {q.grade_id: float(q.points) for q in result.questions if q.points is not None}
        by_student.append((mine, sum(mine.values())))
    stats = []
    for grade_id, kind, maximum in question_order(results):
        pairs = [(mine[grade_id], total - mine[grade_id]) for mine, total in by_student if grade_id in mine]
        own = [score for score, _ in pairs]
        difficulty = statistics.fmean(own) / maximum if own and maximum > 0 else None
        discrimination = correlation(own, [rest for _, rest in pairs])
        stats.append(QuestionStats(grade_id, kind, maximum, tuple(own), difficulty, discrimination))
    return stats
