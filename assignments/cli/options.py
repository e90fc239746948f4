"""Arguments and helpers more than one command group uses: the course folder a command works on."""

from __future__ import annotations

from pathlib import Path

from assignments.course import Course, default
from assignments.intake import LAYOUTS


def course_of(args) -> Course:
    return Course(Path(args.root)) if getattr(args, "root", None) else default()


def root_option(parser) -> None:
    parser.add_argument(
        "--root",
        help="course folder holding source/, release/, pyproject.toml and nbgrader_config.py (default: this checkout)",
    )


def layout_option(parser) -> None:
    """``--layout``: how the instructor says a download is read (intake.LAYOUTS)."""
    parser.add_argument(
        "--layout",
        choices=LAYOUTS,
        default="auto",
        help="how the download is read: folder (one file or folder per student, no LMS names read), canvas, "
        "moodle, gradescope (its Export Submissions), or auto (each name by its form; a Gradescope export only "
        "when its metadata sits beside nothing but submission_<id> folders). Default: auto",
    )
