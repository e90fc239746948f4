"""``course written``: every student's written answers with their evidence, one PDF (and HTML) per student and
one page per question across the class (``handgrading/written.py``)."""

from __future__ import annotations

from pathlib import Path

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of
from assignments.escaping import one_line
from assignments.handgrading.written import written
from assignments.runs.folder import Run


def cmd_written(args) -> int:
    """Every student's written answers with their evidence: HTML and PDF per student, outline.json, and one
    page per question across the class."""
    assignment = course_of(args).assignment(args.assignment)
    out = Path(args.out or Run.of_term(assignment).written)
    try:  # --roster was checked before (arguments.roster)
        outline, refused = written(assignment, Path(args.submissions), out, pdf=not args.no_pdf, roster=args.roster)
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


def register(sub) -> None:
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
