"""``course repair``: damaged notebooks repaired so that plain ``nbgrader autograde`` grades them
(``workflow.repair_for_nbgrader``)."""

from __future__ import annotations

from pathlib import Path

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, layout_option
from assignments.runs.folder import Run
from assignments.workflow import repair_for_nbgrader


def cmd_repair(args) -> int:
    """Repaired copies for nbgrader (the release's metadata restored, UTF-8) and a report of what was done."""
    # Lazy: the repair machinery builds its pattern tables at import, about 60 ms of every `course --help`.
    from assignments.grading.doors.nbgrader import repair

    assignment = course_of(args).assignment(args.assignment)
    out = Path(args.out or Run.of_term(assignment).repair_alone)
    repairs = repair_for_nbgrader(assignment, Path(args.submissions), out, args.layout)
    print(repair.report_table(repairs, f"{args.assignment}: repaired for nbgrader (release cells found, per method)"))
    print(
        f"{repair.summary(repairs)}\nreport: {out / repair.REPORT}\nrepaired copies: {out / 'submitted'} "
        f"(nbgrader's layout: copy its folders into your course's submitted/, then "
        f"`nbgrader autograde {args.assignment}`)"
    )
    return 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "repair",
        help="repair damaged notebooks (lost nbgrader metadata, another encoding) "
        "so that plain `nbgrader autograde` grades them",
        example="course repair transformers submissions.zip --out repaired",
    )
    arguments.assignment(parser)
    arguments.download(parser)
    arguments.output_folder(parser, help="output folder (default: grades/<term>/<assignment>/repair)")
    layout_option(parser)
    parser.set_defaults(func=cmd_repair)
