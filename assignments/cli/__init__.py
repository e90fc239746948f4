"""The instructor command line: ``course <command>`` (or ``python -m assignments <command>``).

One module per command group (``grading``, ``release``, ``export``, ``handgrading``, ``similarity``), each
registering its commands (``add_commands``) and turning arguments into a call of the wing that does the
work; ``options`` holds what several groups share. ``build_parser`` below is the one list of groups.
"""

from __future__ import annotations

import argparse
import sys

from . import export, grading, handgrading, release, similarity

# What `course --help` says to an instructor (the module docstring above is for developers).
USAGE = """Release, grade and export the course's notebook assignments.

A term: `course release` -> students submit -> `course grade <a> <LMS download>` (or `course autograde`)
-> `course formgrader <a>` for written answers -> `course export <a>`. Each run writes under
grades/<term>/<assignment>/ ([tool.course] term in pyproject.toml) and reads nothing from another
run; the demo has grades/demo/. `course clean` removes the demo's runs, build/ and dist/ (`--term T`
also that term's grades); `make clean` removes all of grades/, build/ and dist/."""


# --- the parser ----------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="course", description=USAGE, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    # In the order `course --help` lists them.
    grading.add_commands(sub)
    release.add_commands(sub)
    export.add_commands(sub)
    handgrading.add_formgrader_command(sub)
    similarity.add_commands(sub)
    handgrading.add_written_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from assignments.grading.testkit.errors import SandboxRefused
    from assignments.intake import IntakeError

    args = build_parser().parse_args(argv)
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
