"""``course lms``: the LMS bundles dist/lms/<assignment>.zip rebuilt from the committed release/
(``release/lms.py``)."""

from __future__ import annotations

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
    names = args.assignment or [n for n in course.names() if (course.release_dir / n).is_dir()]
    status = 0
    for name in names:
        try:
            path = lms.build_bundle(name, course.release_dir, course.dist_dir, course.root)
            print(f"{name}: {course.display(path)}")
        except FileNotFoundError as error:
            print(f"{name}: {error}")
            status = 1
    if not names:
        print("no release folders yet; run `course release`")
        status = 1
    return status


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
