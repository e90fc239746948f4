"""``course feedback``: each student's feedback page delivered the way their LMS takes it (``delivery/``)."""

from __future__ import annotations

import os
from pathlib import Path

from ..escaping import one_line


def _canvas_target(args, config: dict) -> tuple[str, str, str] | str:
    """(Canvas URL, course id, assignment id) for the API, or the line saying what is missing."""
    table = config.get("canvas") or {}
    url = args.canvas_url or table.get("url") or ""
    course_id = str(args.canvas_course or table.get("course_id") or "")
    assignment_id = str(args.canvas_id or (table.get("assignments") or {}).get(args.assignment, {}).get("id") or "")
    missing = [
        what
        for what, value in (
            ("--canvas-url (or [tool.course.canvas] url)", url),
            ("--canvas-course (or [tool.course.canvas] course_id)", course_id),
            (f"--canvas-id (or [tool.course.canvas.assignments] {args.assignment} = {{ id = ... }})", assignment_id),
        )
        if not value
    ]
    if missing:
        return "the Canvas API needs " + ", ".join(missing)
    return url, course_id, assignment_id


def cmd_feedback(args) -> int:
    from ..config import settings
    from ..course import resolve
    from ..delivery import canvas_api
    from ..delivery.release import ELSEWHERE, release_zip
    from ..exports import sqlite_folder
    from ..intake import IntakeResult
    from ..run_folder import Run
    from ..workflow import gather_export_job

    if args.lms in ELSEWHERE:
        print(ELSEWHERE[args.lms])
        return 0
    if (args.api or args.dry_run) and args.lms != "canvas":
        print("--api and --dry-run are for Canvas; Moodle takes the feedback zip")
        return 2
    try:
        assignment = resolve(args.assignment)
    except (KeyError, ValueError, OSError) as error:
        print(f"unknown assignment {args.assignment!r}: {error}")
        return 2
    run = Run.of_results(args.results) if args.results else Run.of_term(assignment)
    run = run.with_course(sqlite_folder(args.db))
    if not run.intake.is_file():
        print(
            f"no intake manifest {run.intake}: feedback goes back only to students an LMS download named "
            "(grade the class from its Canvas or Moodle download first)"
        )
        return 2
    problems: list[str] = []
    try:
        intake = IntakeResult.load(run.intake)
        job = gather_export_job(run, assignment, ("feedback",), db_url=args.db, strict=False, problems=problems)
    except (FileNotFoundError, LookupError, ValueError, KeyError, TypeError) as error:
        print(f"feedback not released: {one_line(error)}")
        return 2
    for problem in problems:
        print(problem)
    choices = {"include_ungraded": args.include_ungraded, "changed_only": args.changed_only}
    try:
        if args.api or args.dry_run:
            target = _canvas_target(args, settings(assignment.course.root))
            if isinstance(target, str):
                print(target)
                return 2
            url, course_id, canvas_id = target
            done = canvas_api.release_api(
                run,
                assignment.name,
                job.results,
                job.roster,
                intake,
                url=url,
                course_id=course_id,
                assignment_id=canvas_id,
                token=os.environ.get(canvas_api.TOKEN_VARIABLE),
                dry_run=args.dry_run,
                **choices,
            )
        else:
            done = release_zip(run, assignment.name, job.results, job.roster, intake, args.lms, **choices)
    except (RuntimeError, ValueError, OSError) as error:
        print(f"feedback not released: {one_line(error)}")
        return 2
    _report(args, done, run)
    return 0 if done.pages else 1


def _report(args, done, run) -> None:
    if done.archive is not None:
        how = (
            "in Canvas: Assignments > the assignment > Re-Upload Submissions"
            if args.lms == "canvas"
            else "in Moodle: the assignment > View all submissions > Grading action: "
            "Upload multiple feedback files in a zip"
        )
        print(f"{args.lms}: {len(done.pages)} page(s) in {done.archive}; upload it {how} (docs/how-to/feedback.md)")
    elif done.pages and args.dry_run:
        print(f"dry run: {len(done.pages)} page(s) would be posted; nothing was sent or recorded")
    elif done.pages:
        print(f"canvas API: {len(done.pages)} comment(s) posted")
    else:
        print("no page to release")
    if done.unchanged:
        print(f"unchanged since the last release, left out: {len(done.unchanged)} student(s)")
    if done.held:
        print(f"held back: {len(done.held)} student(s)")
        for held in done.held:
            print(f"  {one_line(held.student)}: {one_line(held.why)}")
    if done.record is not None:
        print(f"recorded in {done.record}")


def add_commands(sub) -> None:
    cmd = sub.add_parser(
        "feedback",
        help="deliver each student's feedback page the way their LMS takes it (a Canvas re-upload zip or its "
        "API, Moodle's feedback zip) and record what went to whom",
        description="Writes <run>/feedback/<lms>/<assignment>_feedback_<lms>.zip, each page named as the LMS "
        "named that student's download, and appends the release to <run>/feedback/released.json. A student "
        "whose written answers are not graded yet, or whose record the grader had a problem with, is held "
        "back. Example: course feedback transformers --lms canvas",
    )
    cmd.add_argument("assignment")
    cmd.add_argument(
        "--lms",
        required=True,
        choices=("canvas", "moodle", "gradescope", "prairielearn"),
        help="where the class submitted; Gradescope and PrairieLearn show feedback in their own results",
    )
    cmd.add_argument(
        "--results",
        type=Path,
        default=None,
        help="a run's results folder; default: the term's, grades/<term>/<assignment>/results",
    )
    cmd.add_argument("--db", default=None, help="nbgrader gradebook URL holding the hand grades; default: the run's")
    cmd.add_argument(
        "--include-ungraded",
        action="store_true",
        help="also send pages with written answers not graded yet (they say 'not graded yet', never 0)",
    )
    cmd.add_argument(
        "--changed-only",
        action="store_true",
        help="leave out students whose page is the same as the one the record says they got",
    )
    cmd.add_argument("--api", action="store_true", help="Canvas: post each page as a comment through Canvas's API")
    cmd.add_argument("--dry-run", action="store_true", help="with --api: print what would be posted, send nothing")
    cmd.add_argument(
        "--canvas-url", default=None, help="e.g. https://canvas.example.edu; default [tool.course.canvas] url"
    )
    cmd.add_argument(
        "--canvas-course", default=None, help="the Canvas course id; default [tool.course.canvas] course_id"
    )
    cmd.add_argument(
        "--canvas-id",
        default=None,
        help="the Canvas assignment id; default [tool.course.canvas.assignments] <assignment>'s id",
    )
    cmd.set_defaults(func=cmd_feedback)
