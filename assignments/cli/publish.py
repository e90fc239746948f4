"""``course publish``: the student side of the course written to a folder of its own (``release/publish.py``)."""

from __future__ import annotations

from pathlib import Path

from .options import course_of, root_option


def cmd_publish(args) -> int:
    from ..release.publish import PublishRefused, publish

    course = course_of(args)
    try:
        done = publish(course, args.dir, args.assignment or None, check_remote=args.check_remote)
    except PublishRefused as error:
        print(f"{error}\nnothing was published")
        return 2
    print(
        f"published {len(done.written)} file(s) to {done.out}"
        + (f"; removed {len(done.removed)} an earlier publish wrote" if done.removed else "")
    )
    print(f"next: commit and push {done.out} to the student repository colab_url opens (docs/how-to/publish.md)")
    return 0


def add_commands(sub) -> None:
    cmd = sub.add_parser(
        "publish",
        help="write the student side (release notebooks, their data, a student README) to a folder of its own, "
        "the repository colab_url opens",
        description="Writes DIR/README.md and DIR/<assignment>/ from the committed release/, where each Colab "
        "link points, after the release's leak scan of the whole tree. Refuses, writing nothing, the shipped "
        "placeholder colab_url, a colab_url into this course repository, a stale release, and a DIR inside the "
        "course repository. Example: course publish ../nlp-students",
    )
    cmd.add_argument("dir", type=Path, help="the folder (or a clone of the student repository) to write")
    cmd.add_argument("assignment", nargs="*", help="default: every assignment with a release folder")
    cmd.add_argument(
        "--check-remote",
        action="store_true",
        help="also list the GitHub repository colab_url opens and refuse one holding solutions/ or autograder/ "
        "(needs the network)",
    )
    cmd.set_defaults(func=cmd_publish)
    root_option(cmd)
