"""``course feedback``'s one call: read the run once (records with hand grades, names, the intake manifest),
then release through the chosen way in (``release.release_zip`` or ``canvas_api.release_api``)."""

from __future__ import annotations

from dataclasses import dataclass

from assignments.course import Assignment
from assignments.delivery import canvas_api
from assignments.delivery.release import ELSEWHERE, Release, release_zip
from assignments.runs.folder import Run
from assignments.runs.manifest import IntakeResult


class DeliveryRefused(Exception):
    """Nothing was released, and this line says why (bad input: exit status 2)."""


@dataclass(frozen=True)
class CanvasTarget:
    """Where the Canvas API posts: the instance, the course, the assignment."""

    url: str
    course_id: str
    assignment_id: str


def canvas_target(assignment: Assignment, url=None, course_id=None, assignment_id=None) -> CanvasTarget:
    """The command line's values, else ``[tool.course.canvas]``'s (``url``, ``course_id``, and the assignment's
    ``id`` under ``assignments``); DeliveryRefused naming what is missing."""
    configured = assignment.course.settings.canvas
    target = CanvasTarget(
        str(url or configured.url or ""),
        str(course_id or configured.course_id or ""),
        str(assignment_id or configured.assignment(assignment.name).id or ""),
    )
    missing = [
        what
        for what, value in (
            ("--canvas-url (or [tool.course.canvas] url)", target.url),
            ("--canvas-course (or [tool.course.canvas] course_id)", target.course_id),
            (
                f"--canvas-id (or [tool.course.canvas.assignments] {assignment.name} = {{ id = ... }})",
                target.assignment_id,
            ),
        )
        if not value
    ]
    if missing:
        raise DeliveryRefused("the Canvas API needs " + ", ".join(missing))
    return target


def deliver(
    run: Run,
    assignment: Assignment,
    lms: str,
    *,
    db_url: str | None = None,
    include_ungraded: bool = False,
    changed_only: bool = False,
    canvas: CanvasTarget | None = None,
    dry_run: bool = False,
    token: str | None = None,
    problems: list[str] | None = None,
) -> Release:
    """Release ``run``'s feedback of ``assignment`` through ``lms`` (a zip; with ``canvas``, Canvas's API).
    Problems that leave the release possible (hand grades unreadable) go to ``problems``."""
    from assignments.workflow import ExportOptions, gather_export_job

    if lms in ELSEWHERE:
        raise DeliveryRefused(ELSEWHERE[lms])
    if not run.intake.is_file():
        raise DeliveryRefused(
            f"no intake manifest {run.intake}: feedback goes back only to students an LMS download named "
            "(grade the class from its Canvas or Moodle download first)"
        )
    try:
        intake = IntakeResult.load(run.intake)
        options = ExportOptions(db_url=db_url, strict=False)
        job = gather_export_job(run, assignment, ("feedback",), options, problems)
    except (FileNotFoundError, LookupError, ValueError, TypeError) as error:
        raise DeliveryRefused(str(error)) from None
    choices = {"include_ungraded": include_ungraded, "changed_only": changed_only}
    if canvas is not None:
        return canvas_api.release_api(
            run,
            assignment.name,
            job.results,
            job.roster,
            intake,
            url=canvas.url,
            course_id=canvas.course_id,
            assignment_id=canvas.assignment_id,
            token=token,
            dry_run=dry_run,
            **choices,
        )
    return release_zip(run, assignment.name, job.results, job.roster, intake, lms, **choices)
