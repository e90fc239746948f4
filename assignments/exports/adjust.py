"""What the course decides after grading (excused questions, the late policy, who deducts for lateness)
and the one arithmetic every export reports a score with.

The decisions come from the course configuration (``[tool.course]`` in ``pyproject.toml``) or the command
line, and are applied once, to copies of the records (``apply``), before any writer runs. Every writer
then asks ``reported_score`` for the points it shows, so Canvas, Gradescope's results.json, nbgrader's CSV
and the feedback give each student the same percentage.

The arithmetic (``reported_score``): an export reports some of the questions (Gradescope's programming
assignment: the autograded ones; Canvas, nbgrader and the feedback: all of them) against points possible
that it does not choose itself (Canvas keeps the assignment's own points possible whatever the CSV says;
Gradescope's outline holds the autograded points). Of the questions in that scope, the excused ones leave
both score and maximum; what remains is a fraction, which is scaled to the export's points possible; the
late penalty is a percent of those same points possible. So a perfect student with an excused question
keeps full marks everywhere, and a day late at 10% costs 10 percentage points everywhere.

Pending written answers: a written question with no hand grade yet, in a record a grader can still
grade (not excused, not a rejected record), is *pending*. ``reported_score`` counts it as nothing earned
so far and says how many are pending (``Score.pending``); no export shows that sum as the student's
score unless asked: the Canvas CSV leaves the student's cell empty (``ungraded_written = "withhold"``,
the default) or posts the partial total only when the instructor chose ``"partial"``; the feedback and
nbgrader's CSV say "pending" instead of a number. A rejected record (no notebook, or one that could not
be read) has no answer for a grader to see: its written questions count 0, like its autograded ones,
unless a grader enters a hand grade.

Excusing: ``[tool.course.excused] <assignment> = ["<grade_id>", "<student>:<grade_id>", ...]`` (or
``course export --excuse``).

Late policy: ``[tool.course.late_policy]`` with ``per_day`` (percent of the points possible off per
started day late), ``grace_hours`` (lateness forgiven) and ``cap`` (most percent taken off); no table,
or ``per_day = 0``, means no penalty. How late: ``hours_late`` in the roster where the LMS gave times;
otherwise the LMS's late flag (Canvas' ``_LATE_`` in the download's file name carries no time) counts as
one started day past the grace period. The penalty never takes a score below zero.

Who deducts: ``[tool.course.canvas] late_policy``. Canvas' own Late Policy (Grades > Settings > Late
Policies) deducts when a grade is entered for a submission Canvas marks late, an imported grade
included, so the course's penalty and Canvas' would both apply. ``"course"``: Canvas' Late Policy is off
and the course's penalty is in every export. ``"canvas"``: Canvas deducts from its own submission times;
no export applies the course's penalty (the CSV holds the scores before lateness). Not set: the course's
penalty applies and ``course export`` warns when it would stack with Canvas'.

A group's lateness (Gradescope's group submissions, ``group_lateness``): each member is as late as the
submission time against their own due date, extension included; the group's one score counts the least
late member's lateness, so no member loses the extension they were given, and the list order of members
never matters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from assignments.results.model import SubmissionResult
from assignments.settings import LatePolicy

Scope = Literal["all", "autograded"]


def group_lateness(members: dict[str, float]) -> float:
    """The hours late a group submission counts: member -> hours late against that member's own due
    date (their extension included), the least of them. An empty group is on time."""
    return min(members.values(), default=0.0)


@dataclass(frozen=True)
class Score:
    points: float  # what the export shows, after the late penalty, never below 0 (pending answers: nothing yet)
    max_points: float  # the export's points possible
    penalty: float  # points the late policy took off, on those points possible
    before_penalty: float  # the score on those points possible before the late penalty
    pending: int  # written answers in scope (not excused) that still wait for a hand grade (``is_pending``)
    excused: bool = False  # every question in scope is excused: nothing is left to score
    pending_points: float = 0.0  # those answers' points (their maximum, before any scaling)

    @property
    def ungraded(self) -> bool:
        """The score is not final: ``points`` is a partial total that no export shows as the score."""
        return self.pending > 0

    @property
    def fraction(self) -> float:
        return self.points / self.max_points if self.max_points else 1.0


def is_pending(result: SubmissionResult, question) -> bool:
    """A written answer of ``result`` that waits for a grader: no hand grade, not excused, and in a record
    a grader can grade (a rejected record has no answer to show; its written questions count 0)."""
    return (
        question.kind == "manual" and question.points is None and not question.excused and result.status != "rejected"
    )


def reported_score(result: SubmissionResult, scope: Scope = "all", points_possible: float | None = None) -> Score:
    """The score an export reports for ``result``: the questions of ``scope`` that are not excused
    (pending written answers as nothing earned yet, counted in ``pending``), as a fraction of their
    maximum, scaled to ``points_possible`` (default: that maximum), less the late penalty
    (``late_percent`` of those points possible), never below 0. When every question in scope is excused
    the export has nothing to count against the student: full points possible, and ``excused`` says so."""
    in_scope = [q for q in result.questions if scope == "all" or q.kind == scope]
    kept = [q for q in in_scope if not q.excused]
    earned = sum(q.points or 0.0 for q in kept)
    maximum = sum(q.max_points for q in kept)
    possible = maximum if points_possible is None else float(points_possible)
    before = possible * earned / maximum if maximum else possible
    penalty = round(possible * result.late_percent / 100, 4)
    pending = [q for q in kept if is_pending(result, q)]
    return Score(
        round(max(0.0, before - penalty), 4),
        possible,
        penalty,
        round(before, 4),
        len(pending),
        bool(in_scope) and not kept,
        sum(q.max_points for q in pending),
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
    results: list[SubmissionResult],
    roster: dict[str, dict],
    policy: LatePolicy,
    excused: list[str] = (),
    canvas_deducts: bool = False,
) -> list[SubmissionResult]:
    """Copies of ``results`` with excused questions marked and the late percent worked out.
    ``canvas_deducts``: Canvas' own Late Policy deducts (``[tool.course.canvas] late_policy = "canvas"``),
    so no copy carries the course's penalty; a late one says where its deduction happens."""
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
        info = roster.get(copy.student, {})
        days = policy.days_late(info)
        if canvas_deducts and (days or info.get("late") or info.get("hours_late")):
            copy.late_note = "submitted late: Canvas' own Late Policy takes its deduction in Canvas"
        elif days and policy.per_day:
            copy.late_percent = policy.percent(days)
            copy.late_note = (
                f"{days} day(s) late: {copy.late_percent:g}% of the points off "
                f"({policy.per_day:g}% per started day after {policy.grace_hours:g} h of grace, "
                f"at most {policy.cap:g}%)"
            )
        if copy.late_note and len(info.get("members_hours_late") or ()) > 1:
            copy.late_note += "; a group submission counts its least late member, each against their own due date"
        adjusted.append(copy)
    return adjusted
