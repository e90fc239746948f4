"""``course clean``: what can be made again removed (the demo's runs, release staging, bundles) and, only
when named, one term's runs (``course.clean``)."""

from __future__ import annotations

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option
from assignments.course import clean


def cmd_clean(args) -> int:
    course = course_of(args)
    for target in clean(course, args.term):  # a term folder of grades/ (arguments.term checked it)
        print(f"removed {course.display(target)}")
    return 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "clean",
        help="remove the demo's runs, release staging and bundles; with --term, "
        "also that term's grades (hand grades included)",
        example="course clean --term 2025-spring",
    )
    arguments.term(parser)
    parser.set_defaults(func=cmd_clean)
    root_option(parser)
