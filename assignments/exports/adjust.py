"""What the course decides after grading: excused questions and the late policy, and the final score.

Both come from the course configuration (``[tool.course]`` in ``pyproject.toml``) or the command line,
and are applied once, to copies of the records, before any writer runs; so Canvas, Gradescope's
results, nbgrader's export, the feedback and the report all show the same numbers.

Excusing: ``[tool.course.excused] <assignment> = ["<grade_id>", "<student>:<grade_id>", ...]`` (or
``course export --excuse``). An excused question leaves both the score and its maximum.

Late policy: ``[tool.course.late_policy]`` with ``per_day`` (percent of the assignment's points off per
started day late), ``grace_hours`` (lateness forgiven) and ``cap`` (most percent taken off); no table,
or ``per_day = 0``, means no penalty. How late: ``hours_late`` in the roster where the LMS gave times;
otherwise the LMS's late flag (Canvas' ``_LATE_`` in the download's file name carries no time) counts as
one started day past the grace period. The penalty never takes a score below zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..results.model import SubmissionResult


@dataclass(frozen=True)
class LatePolicy:
    per_day: float = 0.0  # percent of the maximum per started day late
    grace_hours: float = 0.0
    cap: float = 100.0  # most percent taken off

    @classmethod
    def from_settings(cls, table: dict | None) -> LatePolicy:
        table = table or {}
        unknown = set(table) - {"per_day", "grace_hours", "cap"}
        if unknown:
            raise ValueError(
                f"[tool.course.late_policy]: unknown key(s) {sorted(unknown)}; expected per_day, grace_hours, cap"
            )
        policy = cls(float(table.get("per_day", 0)), float(table.get("grace_hours", 0)), float(table.get("cap", 100)))
        if policy.per_day < 0 or policy.grace_hours < 0 or not 0 <= policy.cap <= 100:
            raise ValueError(
                f"[tool.course.late_policy] needs per_day >= 0, grace_hours >= 0 and 0 <= cap <= 100; got {table}"
            )
        return policy

    def days_late(self, info: dict) -> int:
        """Started days late after the grace period, from the roster entry of one student."""
        hours = info.get("hours_late")
        if hours is None:
            return 1 if info.get("late") else 0
        return max(0, math.ceil((float(hours) - self.grace_hours) / 24))

    def percent(self, days: int) -> float:
        return min(self.per_day * days, self.cap)


@dataclass(frozen=True)
class Score:
    points: float
    max_points: float
    ungraded: bool  # a written answer (not excused) still waits for a hand grade


def final_score(result: SubmissionResult) -> Score:
    """The assignment's score: every question that is not excused (ungraded written answers as 0), less
    the late penalty, never below zero."""
    kept = [q for q in result.questions if not q.excused]
    earned = sum(q.points or 0.0 for q in kept)
    return Score(
        round(max(0.0, earned - result.late_penalty), 4),
        sum(q.max_points for q in kept),
        any(q.kind == "manual" and q.points is None for q in kept),
    )


def parse_excused(entries) -> tuple[set[str], set[tuple[str, str]]]:
    """``["mask_80_written", "111:attention_tests"]`` -> (for the class, (student, grade_id) pairs)."""
    everyone, one = set(), set()
    for entry in entries or []:
        student, sep, grade_id = str(entry).rpartition(":")
        if sep:
            one.add((student, grade_id))
        else:
            everyone.add(grade_id)
    return everyone, one


def apply(
    results: list[SubmissionResult], roster: dict[str, dict], policy: LatePolicy, excused: list[str] = ()
) -> list[SubmissionResult]:
    """Copies of ``results`` with excused questions marked and the late penalty worked out."""
    everyone, one = parse_excused(excused)
    known = {q.grade_id for r in results for q in r.questions}
    unknown = sorted((everyone | {g for _, g in one}) - known)
    if unknown and results:
        raise ValueError(
            f"excused question(s) {unknown} are not questions of {results[0].assignment}; "
            f"known: {', '.join(sorted(known))}"
        )
    adjusted = []
    for result in results:
        copy = SubmissionResult.from_dict(result.to_dict())
        for question in copy.questions:
            question.excused = question.grade_id in everyone or (copy.student, question.grade_id) in one
        days = policy.days_late(roster.get(copy.student, {}))
        percent = policy.percent(days) if policy.per_day else 0.0
        if percent:
            maximum = sum(q.max_points for q in copy.questions if not q.excused)
            copy.late_penalty = round(maximum * percent / 100, 4)
            copy.late_note = (
                f"{days} day(s) late: {percent:g}% of {maximum:g} points off "
                f"({policy.per_day:g}% per started day after {policy.grace_hours:g} h of grace, "
                f"at most {policy.cap:g}%)"
            )
        adjusted.append(copy)
    return adjusted
