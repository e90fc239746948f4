"""``course catalog``: the assignments, their questions (grade_id, kind, points) and totals
(``course.points_report``)."""

from __future__ import annotations

from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option
from assignments.course import points_report


def cmd_catalog(args) -> int:
    course = course_of(args)
    ok = True
    blocks = []
    for name in course.names():
        text, fine = points_report(course.assignment(name))
        blocks.append(text)
        ok &= fine
    print("\n\n".join(blocks))
    total = sum(course.assignment(name).total_points for name in course.present())
    print(f"\ncourse total: {total:g} points (the sum of the source notebooks' graded cells)")
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
