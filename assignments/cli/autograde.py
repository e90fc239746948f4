"""``course autograde``: the class graded through real ``nbgrader autograde``, each notebook repaired first,
with the standalone door's second opinion (``workflow.autograde_class``)."""

from __future__ import annotations

from pathlib import Path

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, layout_option
from assignments.grading.doors.nbgrader.door import NOTEBOOK_TIMEOUT_S
from assignments.runs.folder import Run
from assignments.workflow import autograde_class


def cmd_autograde(args) -> int:
    assignment = course_of(args).assignment(args.assignment)
    run = Run.autograde(args.out) if args.out else Run.autograde_of_term(assignment)
    autograde_class(
        assignment,
        Path(args.submissions),
        run,
        args.timeout,
        not args.no_cross_check,
        args.workers,
        layout=args.layout,
    )
    return 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "autograde",
        help="grade the same inputs through real `nbgrader autograde`, "
        "each notebook repaired first (as `course repair`)",
        example="course autograde transformers submissions.zip --timeout 900",
    )
    arguments.assignment(parser)
    arguments.download(parser)
    arguments.output_folder(parser, help="output folder (default: grades/<term>/<assignment>/nbgrader)")
    layout_option(parser)
    parser.add_argument(
        "--timeout",
        type=arguments.seconds,
        default=None,
        help=f"seconds one student's nbgrader run may take (default: {NOTEBOOK_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--workers",
        type=arguments.count,
        default=None,
        help="parallel workers of the standalone second opinion (default: CPU cores)",
    )
    parser.add_argument(
        "--no-cross-check",
        action="store_true",
        help="skip the standalone door's second opinion (faster; no disagreement check)",
    )
    parser.set_defaults(func=cmd_autograde)
