"""``course export``: Gradescope, Canvas, nbgrader, feedback and report exports written from a run's stored
results (``workflow.export``, ``exports/``)."""

from __future__ import annotations

from assignments import exports
from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option
from assignments.exports import canvas
from assignments.runs.folder import Run
from assignments.settings import setting
from assignments.workflow import export


def cmd_export(args) -> int:
    problems: list[str] = []
    formats = args.formats  # checked names (arguments.formats)
    assignment = course_of(args).assignment(args.assignment)
    run = Run.of_results(args.results) if args.results else Run.of_term(assignment)
    # A SQLite gradebook named on the command line: its folder is the course folder formgrader's notebooks go to.
    run = run.with_exports(args.out).with_course(exports.sqlite_folder(args.db))
    choices = {
        "name": args.canvas_assignment,
        "canvas_id": args.canvas_id,
        "ungraded_written": args.ungraded_written,
        "per_question": args.per_question,
        "late_policy": args.canvas_late_policy,
    }
    try:
        written = export(
            run,
            assignment,
            formats,
            roster=args.roster,
            db_url=args.db,
            canvas_choices=choices,
            excused=args.excuse or [],
            strict=False,
            problems=problems,
        )
    except (FileNotFoundError, LookupError, RuntimeError, ValueError) as error:
        print(f"export failed: {error}")
        return 1
    exports.print_written(written)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


def _canvas_arguments(parser) -> None:
    parser.add_argument(
        "--canvas-assignment",
        default=None,
        metavar="NAME",
        help="the existing Canvas assignment's name; default: [tool.course.canvas.assignments] "
        "in pyproject.toml, else the assignment's title",
    )
    parser.add_argument(
        "--canvas-id",
        default=None,
        metavar="ID",
        help="its Canvas assignment id (the number in its URL); default: from pyproject.toml",
    )
    parser.add_argument(
        "--ungraded-written",
        choices=(*setting("canvas.ungraded_written").choices, *canvas.UNGRADED_RENAMED),
        default=None,
        help="a student with a written answer not graded yet: withhold (their Canvas cell stays empty, Canvas "
        "keeps what it has) or partial (post the points earned so far); omit and zero are the earlier names; "
        "default: [tool.course.canvas] ungraded_written, else withhold",
    )
    parser.add_argument(
        "--per-question",
        action="store_true",
        help="add one Canvas column per question (Canvas makes each a new assignment)",
    )
    parser.add_argument(
        "--canvas-late-policy",
        choices=setting("canvas.late_policy").choices,
        default=None,
        help="who deducts for lateness: course (this course's late policy, in every export; Canvas' own "
        "Late Policy is off) or canvas (scores before lateness; Canvas' Late Policy deducts); "
        "default: [tool.course.canvas] late_policy, else course, with a warning",
    )
    arguments.excuse(parser)


def register(sub) -> None:
    parser = add_command(
        sub,
        "export",
        help="write Gradescope, Canvas, nbgrader, feedback and report exports from stored results",
        example="course export transformers --formats canvas,feedback --roster gradebook.csv",
    )
    arguments.assignment(parser, from_root=True)
    arguments.results_folder(parser)
    arguments.output_folder(parser, help="default: exports/ beside the results folder")
    parser.add_argument(
        "--formats",
        type=arguments.formats,
        default=list(exports.FORMATS),
        help=f"comma-separated; default: all ({','.join(exports.FORMATS)})",
    )
    arguments.roster(parser)
    arguments.database(parser)
    _canvas_arguments(parser)
    root_option(parser)
    parser.set_defaults(func=cmd_export)
