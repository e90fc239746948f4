"""``course formgrader`` and ``course written``: hand grading."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from assignments.handgrading import formgrader

from ..run_folder import Run
from . import arguments
from .help import add_command


def cmd_formgrader(args) -> int:
    root = args.nbgrader_course or Run.of_term(args.assignment).course
    try:
        server = formgrader.start(root, args.port)
    except (FileNotFoundError, RuntimeError, TimeoutError) as error:
        print(f"formgrader did not start: {error}")
        return 1
    print(f"course folder: {server.root}")
    print(f"formgrader: {server.url('formgrader')}")
    print(
        f"grade written answers under Manual Grading > {args.assignment}; then run "
        f"`course export {args.assignment}`. Ctrl-C stops the server.",
        flush=True,
    )
    # A service manager stops with SIGTERM: leave through `finally` so the server stops too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def add_formgrader_command(sub) -> None:
    parser = add_command(
        sub,
        "formgrader",
        help="start nbgrader's formgrader (127.0.0.1, with a token) on the "
        "course folder holding the assignment's gradebook",
        example="course formgrader transformers --port 8910",
    )
    arguments.assignment(parser, also=arguments.gradebook_assignments)
    arguments.gradebook_folder(parser)
    parser.add_argument("--port", type=arguments.port, default=None, help="default: a free port")
    parser.set_defaults(func=cmd_formgrader)


def cmd_written(args) -> int:
    """Every student's written answers with their evidence: HTML and PDF per student, outline.json, and one
    page per question across the class."""
    from assignments.handgrading.written import written

    from ..escaping import one_line

    out = Path(args.out or Run.of_term(args.assignment).written)
    try:  # --roster was checked before (arguments.roster)
        outline, refused = written(
            args.assignment, Path(args.submissions), out, pdf=not args.no_pdf, roster=args.roster
        )
    except (FileNotFoundError, RuntimeError) as error:
        print(f"course written: {error}")
        return 1
    for student, why in sorted(refused.items()):
        print(f"left out {one_line(student)}: {one_line(why)}")
    for student, found in outline["findings"].items():
        for finding in found:
            print(f"{one_line(student)}: {finding['code']}: {one_line(finding['message'])}")
    for entry in outline["questions"]:
        pages = entry["pages"]
        print(f"{entry['question']:<32} {entry['points']:>4g} points  page(s) {pages[0]}-{pages[-1]}")
    plain = sum(1 for entry in outline["students"].values() if entry["id_kind"] in ("Canvas user id", "student key"))
    if plain:
        print(
            f"{plain} cover(s) carry the LMS's own key as the student ID, which a Gradescope roster may not hold: "
            "give --roster <Canvas gradebook export> for Canvas's names and SIS User IDs"
        )
    print(f"per student: {out / 'students'}\nper question: {out / 'questions'}\noutline: {out / 'outline.json'}")
    if (out / "class.pdf").is_file():
        print(
            f"the class in one PDF: {out / 'class.pdf'} ({outline['pages_per_submission']} pages per student; "
            f"page 1 of each is the cover with the name and student ID)"
        )
    if outline.get("template"):
        print(f"template (prompts only, empty cover): {out / outline['template']}")
    return 0


def add_written_command(sub) -> None:
    parser = add_command(
        sub,
        "written",
        help="one PDF (and HTML) per student of every written answer with its "
        "evidence as submitted, outline.json, and one page per question",
        example="course written transformers submissions.zip",
    )
    arguments.assignment(parser)
    arguments.download(parser, help=f"{arguments.DOWNLOAD} (as for `course grade`)")
    arguments.output_folder(parser, help="default: this term's run, grades/<term>/<assignment>/written")
    arguments.roster(
        parser,
        help="names and ids for the covers: a Canvas gradebook export (.csv, Grades > Export: its names and SIS "
        "User IDs) or an intake manifest (.json); default: what the download says",
    )
    parser.add_argument("--no-pdf", action="store_true", help="HTML only (no Chromium needed)")
    parser.set_defaults(func=cmd_written)
