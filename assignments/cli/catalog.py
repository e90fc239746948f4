"""``course catalog``: the assignments, their questions (grade_id, kind, points) and totals
(``course.catalog_report``)."""

from __future__ import annotations

from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option
from assignments.course import catalog_report


def cmd_catalog(args) -> int:
    text, ok = catalog_report(course_of(args))
    print(text)
    return 0 if ok else 1


def register(sub) -> None:
    parser = add_command(
        sub,
        "catalog",
        help="assignments, their questions (grade_id, kind, points) and totals",
        example="course catalog",
    )
    parser.set_defaults(func=cmd_catalog)
    root_option(parser)
