"""``course merge``: the runs of a class graded in shards joined into one run, exported as a whole-class run
is (``workflow.merge``)."""

from __future__ import annotations

from pathlib import Path

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option
from assignments.escaping import one_line
from assignments.results import table
from assignments.runs.folder import Run
from assignments.runs.merge import MergeRefused
from assignments.workflow import merge


def cmd_merge(args) -> int:
    """The shards' runs joined into one run, exported as a whole-class run is."""
    # --root's course when given (a merge job on a cluster names it); otherwise the name, as before
    assignment = course_of(args).assignment(args.assignment)  # --root's course when given (a cluster's merge job)
    run = Run.at(Path(args.out).absolute()) if args.out else Run.of_term(assignment)  # nbgrader wants it absolute
    try:
        results = merge(assignment, [Run.at(Path(path).absolute()) for path in args.runs], run, args.allow_missing)
    except MergeRefused as error:
        print(f"course merge refused: {one_line(error, limit=4000)}")
        return 2
    print(table.score_table(results, f"{args.assignment}: {len(args.runs)} shard(s) merged"))
    print(f"results: {run.results}\nexports: {run.exports}")
    return 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "merge",
        help="join the runs of a class graded as shards (`course grade --shard`) into one run, and export it",
        example=[
            "course grade transformers submissions.zip --shard 0/2 --out shards/0",
            "course grade transformers submissions.zip --shard 1/2 --out shards/1",
            "course merge transformers shards/0 shards/1",
        ],
    )
    arguments.assignment(parser, from_root=True)
    arguments.run_folders(parser)
    arguments.output_folder(parser, help="the merged run's folder (default: grades/<term>/<assignment>)")
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="merge although students the intake lists have no record in the runs (a warning names them; "
        "no export has a row for them); without it such a merge is refused and names the shards to grade again",
    )
    root_option(parser)
    parser.set_defaults(func=cmd_merge)
