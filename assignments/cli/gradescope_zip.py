"""``course gradescope-zip``: an assignment's Gradescope autograder zip (``platforms/gradescope/bundle.py``)."""

from __future__ import annotations

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option
from assignments.platforms.gradescope.bundle import build_autograder_zip


def cmd_gradescope_zip(args) -> int:
    course = course_of(args)
    out = args.out or course.dist_dir / "gradescope" / f"{args.assignment}.zip"
    try:
        build_autograder_zip(course.assignment(args.assignment), out)
    except FileNotFoundError as error:
        print(f"cannot build the Gradescope zip: {error}")
        return 1
    except ValueError as error:  # the course's settings (pyproject.toml [tool.course])
        print(f"cannot build the Gradescope zip: {error}")
        return 2
    print(f"wrote {out} (upload it as the autograder of a Gradescope programming assignment)")
    return 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "gradescope-zip",
        help="build the Gradescope autograder zip for an assignment",
        example="course gradescope-zip transformers --out dist/gradescope/transformers.zip",
    )
    arguments.assignment(parser, from_root=True)
    arguments.output_file(parser, "--out", ".zip", help="default: dist/gradescope/<assignment>.zip", run=False)
    parser.set_defaults(func=cmd_gradescope_zip)
    root_option(parser)
