"""The instructor command line: ``course <command>`` (or ``python -m assignments <command>``).

One module per command, named after it (``course stand-in-hub`` lives in ``stand_in_hub.py``): its ``register``
adds the command (``help.add_command``, with an example) and its ``cmd_<command>`` turns the arguments into
one call of the wing that does the work, then reports what was done. ``options`` holds what several
commands share, ``arguments`` every argument that names an assignment, a path or a count, with its check at
the edge, and ``help`` how ``course --help`` reads. ``COMMANDS`` below is the one list of modules;
``GROUPS`` the one list of which job each command belongs to, in the order ``course --help`` (and the docs'
CLI reference) shows them: a new command is a module added to ``COMMANDS`` and its name added to its group
(``tests/cli/test_bad_input.py`` fails on a command no group names).
"""

from __future__ import annotations

import sys

from assignments.cli import (
    arguments,
    autograde,
    catalog,
    claims,
    clean,
    cluster,
    demo,
    export,
    feedback,
    formgrader,
    grade,
    gradescope_zip,
    hygiene,
    image,
    intake,
    lms,
    lock,
    merge,
    prairielearn,
    publish,
    release,
    repair,
    selftest,
    similarity,
    stand_in_hub,
    written,
)
from assignments.cli.help import CourseParser, Group
from assignments.grading.testkit.errors import SandboxRefused
from assignments.intake import IntakeError

# What `course --help` says to an instructor (the module docstring above is for developers).
USAGE = """Release, grade and export the course's notebook assignments.

Each run writes under grades/<term>/<assignment>/ ([tool.course] term in pyproject.toml) and reads nothing
from another run; the demo has grades/demo/. `course clean` removes the demo's runs, build/ and dist/
(`--term T` also that term's grades); `make clean` removes all of grades/, build/ and dist/.
`course <command> --help` says more about a command and ends with an example."""

EPILOG = """Example, a term's assignment:
  course release transformers
  course publish ../nlp-students
  course grade transformers submissions.zip
  course formgrader transformers
  course export transformers
  course feedback transformers --lms canvas"""

# Which job each command belongs to, in the order `course --help` lists them (the term's in the order a term
# runs them). One name per command; a command no group names is listed under "other commands" and fails
# tests/cli/test_bad_input.py.
GROUPS: tuple[Group, ...] = (
    Group(
        "the term",
        "In the order a term runs them: release and publish the student side, take in and grade the class, "
        "hand-grade the written answers, export and deliver the feedback; then the commands for a class graded "
        "in shards (by hand, Slurm or Kubernetes) or for nbgrader's own door.",
        (
            "release",
            "publish",
            "intake",
            "grade",
            "autograde",
            "formgrader",
            "written",
            "similarity",
            "export",
            "feedback",
            "merge",
            "cluster",
            "repair",
        ),
    ),
    Group(
        "authoring",
        "While writing an assignment: its questions and points, the source notebooks' checks, the hidden "
        "suites' mutation tests, the LMS bundles, an offline hub for rehearsals.",
        ("catalog", "hygiene", "claims", "selftest", "lms", "stand-in-hub"),
    ),
    Group(
        "maintenance",
        "The platforms' bundles and images, the locks, cleaning up, and the demo.",
        ("gradescope-zip", "image", "prairielearn", "lock", "clean", "demo"),
    ),
)


# --- the parser ----------------------------------------------------------------------------------------


# Each command's module, in the order they register (the docs' CLI reference lists them so); `course --help`
# lists them by GROUPS, whatever the order here.
COMMANDS = (
    selftest,
    grade,
    merge,
    prairielearn,
    repair,
    autograde,
    demo,
    stand_in_hub,
    cluster,
    release,
    catalog,
    lms,
    hygiene,
    claims,
    publish,
    intake,
    export,
    gradescope_zip,
    image,
    clean,
    lock,
    feedback,
    formgrader,
    similarity,
    written,
)


def build_parser() -> CourseParser:
    parser = CourseParser(prog="course", description=USAGE, epilog=EPILOG, groups=GROUPS)
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        arguments.check(args)  # before anything is written
    except arguments.BadInput as error:
        print(f"course {args.command}: {error}", file=sys.stderr)
        return 2
    try:
        return args.func(args)
    except SandboxRefused as error:  # any command that grades: nothing was graded, and this says why
        print(f"not graded: {error}", file=sys.stderr)
        return 1
    except IntakeError as error:  # the download as a whole cannot be read as given (--layout, a broken zip)
        print(f"intake failed: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
