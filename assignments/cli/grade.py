"""``course grade``: the standalone (sandboxed) door over a class, its results and exports (``workflow``)."""

from __future__ import annotations

from pathlib import Path

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, layout_option, root_option
from assignments.results import table
from assignments.runs.folder import Run
from assignments.workflow import export_all, grade_class


def cmd_grade(args) -> int:
    """Standalone door over one notebook, a folder or an LMS zip; results, exports and a table."""
    assignment = course_of(args).assignment(args.assignment)
    run = Run.at(Path(args.out).absolute()) if args.out else Run.of_term(assignment)  # nbgrader wants it absolute
    shard = args.shard  # a Shard already (arguments.shard), or None
    results = grade_class(
        assignment, Path(args.submissions), run, workers=args.workers, shard=shard, layout=args.layout
    )
    print(table.score_table(results, f"{args.assignment}: standalone grader" + (f", shard {shard}" if shard else "")))
    if shard is None:
        export_all(assignment, run)
        print(f"results: {run.results}\nexports: {run.exports}")
    else:
        print(
            f"results: {run.results} (one shard: `course merge {args.assignment} <every shard's run>` "
            "joins them and writes the exports)"
        )
    return 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "grade",
        help="grade submissions with the standalone (sandboxed) grader",
        example="course grade transformers submissions.zip --workers 4",
    )
    arguments.assignment(parser, from_root=True)
    arguments.download(parser)
    parser.add_argument("--workers", type=arguments.count, default=None, help="parallel workers (default: CPU cores)")
    arguments.output_folder(parser, help="output folder (default: grades/<term>/<assignment>)")
    layout_option(parser)
    parser.add_argument(
        "--shard",
        metavar="i/N",
        type=arguments.shard,
        help="grade only shard i of N (0 <= i < N; by a hash of the student key, the same on every machine); "
        "`course merge` joins the shards' runs",
    )
    root_option(parser)
    parser.set_defaults(func=cmd_grade)
