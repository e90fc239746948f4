"""``course hygiene``: the source notebooks' checks, the first step of ``course release``
(``release/hygiene.py``)."""

from __future__ import annotations

from assignments import release
from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option


def cmd_hygiene(args) -> int:
    course = course_of(args)
    names = args.assignment or release.available(course)[0]
    problems = release.source_problems(course, names)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s)" if problems else f"clean: {', '.join(names) or 'no source notebooks'}")
    return 1 if problems else 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "hygiene",
        help="check source notebooks (what `course release` checks first)",
        example="course hygiene transfer_lm",
    )
    arguments.assignment(parser, several=True, default_help="every assignment with a source notebook", from_root=True)
    parser.set_defaults(func=cmd_hygiene)
    root_option(parser)
