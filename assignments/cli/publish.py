"""``course publish``: the student side of the course written to a folder of its own (``release/publish.py``)."""

from __future__ import annotations

import sys

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option
from assignments.escaping import one_line
from assignments.release.publish import PublishRefused, publish


def cmd_publish(args) -> int:
    course = course_of(args)
    try:
        done = publish(course, args.dir, args.assignment or None, check_remote=args.check_remote)
    except PublishRefused as error:
        first, *more = str(error).splitlines()
        print(f"course publish: nothing published: {one_line(first, 2000)}", file=sys.stderr)
        for line in more:  # a leak scan may find several; each is one line
            print(f"  {one_line(line, 2000)}", file=sys.stderr)
        return 2
    print(
        f"published {len(done.written)} file(s) to {done.out}"
        + (f"; removed {len(done.removed)} an earlier publish wrote" if done.removed else "")
    )
    print(f"next: commit and push {done.out} to the student repository colab_url opens (docs/how-to/publish.md)")
    return 0


def register(sub) -> None:
    cmd = add_command(
        sub,
        "publish",
        help="write the student side (release notebooks, their data, a student README) to a folder of its own, "
        "the repository colab_url opens",
        description="Writes DIR/README.md and DIR/<assignment>/ from the committed release/, where each Colab "
        "link points, after the release's leak scan of the whole tree. Refuses, writing nothing, the shipped "
        "placeholder colab_url, a colab_url into this course repository, a stale release, and a DIR inside the "
        "course repository (docs/how-to/publish.md).",
        example=["course publish ../nlp-students", "course publish ../nlp-students transformers --check-remote"],
    )
    arguments.output_folder(cmd, "dir", help="the folder (or a clone of the student repository) to write", run=False)
    arguments.assignment(cmd, several=True, default_help="every assignment with a release folder", from_root=True)
    cmd.add_argument(
        "--check-remote",
        action="store_true",
        help="also list the GitHub repository colab_url opens and refuse one holding solutions/ or autograder/ "
        "(needs the network)",
    )
    cmd.set_defaults(func=cmd_publish)
    root_option(cmd)
