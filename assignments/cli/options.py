"""Arguments and helpers more than one command group uses: the course folder a command works on."""

from __future__ import annotations

from pathlib import Path

from ..course import Course, default


def course_of(args) -> Course:
    return Course(Path(args.root)) if getattr(args, "root", None) else default()


def root_option(parser) -> None:
    parser.add_argument(
        "--root",
        help="course folder holding source/, release/, pyproject.toml and nbgrader_config.py (default: this checkout)",
    )
