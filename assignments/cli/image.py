"""``course image``: the build context of an assignment's grader image (``platforms/grader_image.py``)."""

from __future__ import annotations

from pathlib import Path

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option
from assignments.platforms.grader_image import PRAIRIELEARN, write_context
from assignments.platforms.prairielearn.question import IMAGE_PLACEHOLDER as PRAIRIELEARN_IMAGE_PLACEHOLDER


def cmd_image(args) -> int:
    course = course_of(args)
    out = Path(args.out or course.build_dir / "image" / args.assignment)
    try:
        write_context(course.assignment(args.assignment), out, prairielearn_image=args.prairielearn_image)
    except FileNotFoundError as error:
        print(f"cannot write the grader image's build context: {error}")
        return 1
    except ValueError as error:  # the course's settings (pyproject.toml [tool.course])
        print(f"cannot write the grader image's build context: {error}")
        return 2
    print(
        f"wrote {out}: build it with `docker build -t course-grader:{args.assignment} {out}` (or podman; "
        f"`make image` does it here), and `--target engine` for the image without the assignment, which "
        f"PrairieLearn pulls; {out / PRAIRIELEARN} is the PrairieLearn question to copy into the course's "
        f"questions/ (docs/how-to/prairielearn.md)"
    )
    if args.prairielearn_image == PRAIRIELEARN_IMAGE_PLACEHOLDER:
        print(
            f"  its info.json names the image {PRAIRIELEARN_IMAGE_PLACEHOLDER}: "
            "pass --prairielearn-image with the engine image you pushed"
        )
    return 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "image",
        help="write the build context of the grader image of an assignment (Gradescope, PrairieLearn, "
        "container hosts, Kubernetes)",
        example="course image transformers --out build/image/transformers",
    )
    arguments.assignment(parser, from_root=True)
    arguments.output_folder(parser, help="default: build/image/<assignment>", run=False)
    parser.add_argument(
        "--prairielearn-image",
        default=PRAIRIELEARN_IMAGE_PLACEHOLDER,
        help="the public engine image PrairieLearn pulls, for the question's info.json "
        "(e.g. myaccount/course-grader:engine)",
    )
    parser.set_defaults(func=cmd_image)
    root_option(parser)
