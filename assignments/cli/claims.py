"""``course claims``: claims without a source in the source notebooks and model answers, enforced or not
(``release/claims.py``)."""

from __future__ import annotations

from assignments import release
from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option


def cmd_claims(args) -> int:
    """Every claims problem of the named assignments, enforced or not (release/claims.py)."""
    course = course_of(args)
    names = args.assignment or release.available(course)[0]
    problems = release.claims.every_problem(course, names)
    for problem in problems:
        print(problem)
    pending = [name for name in names if name in release.claims.NOT_YET_ENFORCED]
    print(
        (f"{len(problems)} problem(s)" if problems else f"every claim sourced: {', '.join(names)}")
        + (f"; not enforced by the release yet: {', '.join(pending)}" if pending else "")
    )
    return 1 if problems else 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "claims",
        help="list claims without a source (figures, findings) in source notebooks and model answers",
        description="Each claim in prose, prompts, model answers and mark schemes carries a footnote [^key] "
        "defined as measured, derived, estimate or cited (source/README.md, Claims and their sources). "
        "`course release` and `course hygiene` refuse an assignment with problems, except those not enforced yet.",
        example="course claims rnn_attention",
    )
    arguments.assignment(parser, several=True, default_help="every assignment with a source notebook", from_root=True)
    parser.set_defaults(func=cmd_claims)
    root_option(parser)
