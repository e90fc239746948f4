"""``course intake``: an LMS download turned into one notebook per student and an intake manifest, with what
was found on the way (duplicates, late and wrong files) (``assignments/intake``)."""

from __future__ import annotations

from assignments import intake
from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, layout_option, root_option
from assignments.escaping import one_line
from assignments.runs.folder import Run


def cmd_intake(args) -> int:
    run = Run.of_term(course_of(args).assignment(args.assignment))
    dest = args.dest or run.submissions
    try:
        result = intake.collect(args.input, args.assignment, dest, layout=args.layout)
    except intake.IntakeError as error:
        print(f"intake failed: {error}")
        return 1
    manifest = result.save(args.manifest or run.intake)
    for finding in result.findings:
        # File names and LMS display names are the students' text: one printable line each, so none can
        # carry an escape sequence to the instructor's terminal.
        who = f"{one_line(finding.student)}: " if finding.student else ""
        print(f"[{finding.severity}] {finding.code}: {who}{one_line(finding.message)}")
    print(result.summary())
    print(f"notebooks in {dest}; manifest {manifest}")
    return 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "intake",
        help="turn an LMS download (zip, folder or .ipynb) into one notebook "
        "per student and report duplicates, late and wrong files",
        example="course intake transformers submissions.zip --layout canvas",
    )
    arguments.assignment(parser, from_root=True)
    arguments.download(parser, "input", help=f"{arguments.DOWNLOAD}, or a Gradescope export")
    arguments.output_folder(parser, "--dest", help="default: grades/<term>/<assignment>/submissions")
    arguments.output_file(parser, "--manifest", ".json", help="default: grades/<term>/<assignment>/intake.json")
    layout_option(parser)
    root_option(parser)
    parser.set_defaults(func=cmd_intake)
