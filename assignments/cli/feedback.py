"""``course feedback``: each student's feedback page delivered the way their LMS takes it (``delivery/``)."""

from __future__ import annotations

import os
import sys

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option
from assignments.delivery import canvas_api
from assignments.delivery.deliver import DeliveryRefused, canvas_target, deliver
from assignments.delivery.release import ELSEWHERE
from assignments.escaping import one_line
from assignments.exports import sqlite_folder
from assignments.runs.folder import Run


def _refuse(line: str) -> int:
    print(f"course feedback: {one_line(line, 2000)}", file=sys.stderr)
    return 2


def cmd_feedback(args) -> int:
    if args.lms in ELSEWHERE:
        print(ELSEWHERE[args.lms])
        return 0
    if (args.api or args.dry_run) and args.lms != "canvas":
        return _refuse("--api and --dry-run are for Canvas; Moodle takes the feedback zip")
    problems: list[str] = []
    try:
        assignment = course_of(args).assignment(args.assignment)
        run = Run.of_results(args.results) if args.results else Run.of_term(assignment)
        canvas = (
            canvas_target(assignment, args.canvas_url, args.canvas_course, args.canvas_id)
            if args.api or args.dry_run
            else None
        )
        done = deliver(
            run.with_course(sqlite_folder(args.db)),
            assignment,
            args.lms,
            db_url=args.db,
            include_ungraded=args.include_ungraded,
            changed_only=args.changed_only,
            canvas=canvas,
            dry_run=args.dry_run,
            token=os.environ.get(canvas_api.TOKEN_VARIABLE),
            problems=problems,
        )
    except (DeliveryRefused, KeyError, RuntimeError, ValueError, OSError) as error:
        return _refuse(f"nothing released: {error}")
    for problem in problems:
        print(one_line(problem))
    _report(args, done)
    return 0 if done.pages else 1


def _report(args, done) -> None:
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


def register(sub) -> None:
    cmd = add_command(
        sub,
        "feedback",
        help="deliver each student's feedback page the way their LMS takes it (a Canvas re-upload zip or its "
        "API, Moodle's feedback zip) and record what went to whom",
        description="Writes <run>/feedback/<lms>/<assignment>_feedback_<lms>.zip, each page named as the LMS "
        "named that student's download, and appends the release to <run>/feedback/released.json. A student "
        "whose written answers are not graded yet, or whose record the grader had a problem with, is held "
        "back (docs/how-to/feedback.md).",
        example=[
            "course feedback transformers --lms canvas",
            "course feedback transformers --lms canvas --api --dry-run --canvas-url https://canvas.example.edu "
            "--canvas-course 1234 --canvas-id 56789",
            "course feedback transformers --lms moodle --include-ungraded",
        ],
    )
    arguments.assignment(cmd, from_root=True)
    cmd.add_argument(
        "--lms",
        required=True,
        choices=("canvas", "moodle", "gradescope", "prairielearn"),
        help="where the class submitted; Gradescope and PrairieLearn show feedback in their own results",
    )
    arguments.results_folder(cmd)
    arguments.database(cmd)
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
    root_option(cmd)
    cmd.set_defaults(func=cmd_feedback)
