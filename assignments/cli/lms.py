"""``course lms``: the LMS bundles dist/lms/<assignment>.zip rebuilt from the committed release/
(``release/lms.py``)."""

from __future__ import annotations

from pathlib import Path

from assignments import release
from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option
from assignments.release import lms


def cmd_lms(args) -> int:
    course = course_of(args)
    refused = release.colab_link_problems(course)
    if refused:  # a bundle's README hands students the Colab links
        for problem in refused:
            print(problem)
        return 2
    names = args.assignment or lms.released(course)
    built = lms.build_bundles(course, names)
    for name, zip_or_why in built:
        print(f"{name}: {course.display(zip_or_why) if isinstance(zip_or_why, Path) else zip_or_why}")
    if not names:
        print("no release folders yet; run `course release`")
    return 0 if names and all(isinstance(zip_or_why, Path) for _, zip_or_why in built) else 1


def register(sub) -> None:
    parser = add_command(
        sub,
        "lms",
        help="rebuild dist/lms/<assignment>.zip from the committed release/",
        example="course lms transformers rnn_attention",
    )
    arguments.assignment(parser, several=True, default_help="every released assignment", from_root=True)
    parser.set_defaults(func=cmd_lms)
    root_option(parser)
