"""``course intake``, ``export``, ``gradescope-zip``, ``image``, ``clean`` and ``lock``: intake, exports and the
things built from the course (bundles, the grader image, the locks)."""

from __future__ import annotations

from pathlib import Path

from assignments import exports
from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, layout_option, root_option
from assignments.escaping import one_line
from assignments.exports import canvas
from assignments.platforms.prairielearn.question import IMAGE_PLACEHOLDER as PRAIRIELEARN_IMAGE_PLACEHOLDER
from assignments.settings import setting


def cmd_export(args) -> int:
    from assignments.runs.folder import Run
    from assignments.workflow import export

    problems: list[str] = []
    formats = args.formats  # checked names (arguments.formats)
    assignment = course_of(args).assignment(args.assignment)
    run = Run.of_results(args.results) if args.results else Run.of_term(assignment)
    # A SQLite gradebook named on the command line: its folder is the course folder formgrader's notebooks go to.
    run = run.with_exports(args.out).with_course(exports.sqlite_folder(args.db))
    choices = {
        "name": args.canvas_assignment,
        "canvas_id": args.canvas_id,
        "ungraded_written": args.ungraded_written,
        "per_question": args.per_question,
        "late_policy": args.canvas_late_policy,
    }
    try:
        written = export(
            run,
            assignment,
            formats,
            roster=args.roster,
            db_url=args.db,
            canvas_choices=choices,
            excused=args.excuse or [],
            strict=False,
            problems=problems,
        )
    except (FileNotFoundError, LookupError, RuntimeError, ValueError) as error:
        print(f"export failed: {error}")
        return 1
    exports.print_written(written)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


def cmd_gradescope_zip(args) -> int:
    from assignments.platforms.gradescope.bundle import build_autograder_zip

    course = course_of(args)
    out = args.out or course.dist_dir / "gradescope" / f"{args.assignment}.zip"
    try:
        build_autograder_zip(course.assignment(args.assignment), out)
    except FileNotFoundError as error:
        print(f"cannot build the Gradescope zip: {error}")
        return 1
    except ValueError as error:  # the course's settings (pyproject.toml [tool.course])
        print(f"cannot build the Gradescope zip: {error}")
        return 2
    print(f"wrote {out} (upload it as the autograder of a Gradescope programming assignment)")
    return 0


def cmd_image(args) -> int:
    from assignments.platforms.grader_image import PRAIRIELEARN, write_context

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


def cmd_clean(args) -> int:
    """Remove what can be made again (the demo's runs, release staging, bundles) and, only when named,
    one term's runs: those hold hand grades that exist nowhere else."""
    import shutil

    course = course_of(args)
    targets = [course.demo_dir, course.build_dir, course.dist_dir]
    if args.term:  # a term folder of grades/ (arguments.term checked it)
        targets.append(course.root / "grades" / args.term)
    for target in targets:
        if target.exists():
            shutil.rmtree(target)
            print(f"removed {course.display(target)}")
    return 0


def cmd_lock(args) -> int:
    from assignments import locks as lockfile

    if args.docs:
        path, moved = lockfile.write_docs()
        print(f"wrote {path.relative_to(lockfile.REPO)}: {len(lockfile.read(path))} packages, {len(moved)} moved")
        for line in moved:
            print(f"  {line}")
        return 0
    if args.check:
        problems = lockfile.drift()
        for line in problems:
            print(line)
        where = lockfile.lock_path().relative_to(lockfile.REPO)
        print(f"{len(problems)} packages differ from {where}" if problems else f"this environment is exactly {where}")
        return 1 if problems else 0
    for path, moved in lockfile.write(pythons=args.python or None):
        print(f"wrote {path.relative_to(lockfile.REPO)}: {len(lockfile.read(path))} packages, {len(moved)} moved")
        for line in moved:
            print(f"  {line}")
    return 0


def cmd_intake(args) -> int:
    from assignments import intake
    from assignments.runs.folder import Run

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


def _canvas_arguments(parser) -> None:
    parser.add_argument(
        "--canvas-assignment",
        default=None,
        metavar="NAME",
        help="the existing Canvas assignment's name; default: [tool.course.canvas.assignments] "
        "in pyproject.toml, else the assignment's title",
    )
    parser.add_argument(
        "--canvas-id",
        default=None,
        metavar="ID",
        help="its Canvas assignment id (the number in its URL); default: from pyproject.toml",
    )
    parser.add_argument(
        "--ungraded-written",
        choices=(*setting("canvas.ungraded_written").choices, *canvas.UNGRADED_RENAMED),
        default=None,
        help="a student with a written answer not graded yet: withhold (their Canvas cell stays empty, Canvas "
        "keeps what it has) or partial (post the points earned so far); omit and zero are the earlier names; "
        "default: [tool.course.canvas] ungraded_written, else withhold",
    )
    parser.add_argument(
        "--per-question",
        action="store_true",
        help="add one Canvas column per question (Canvas makes each a new assignment)",
    )
    parser.add_argument(
        "--canvas-late-policy",
        choices=setting("canvas.late_policy").choices,
        default=None,
        help="who deducts for lateness: course (this course's late policy, in every export; Canvas' own "
        "Late Policy is off) or canvas (scores before lateness; Canvas' Late Policy deducts); "
        "default: [tool.course.canvas] late_policy, else course, with a warning",
    )
    arguments.excuse(parser)


def add_commands(sub) -> None:
    intake = add_command(
        sub,
        "intake",
        help="turn an LMS download (zip, folder or .ipynb) into one notebook "
        "per student and report duplicates, late and wrong files",
        example="course intake transformers submissions.zip --layout canvas",
    )
    arguments.assignment(intake, from_root=True)
    arguments.download(intake, "input", help=f"{arguments.DOWNLOAD}, or a Gradescope export")
    arguments.output_folder(intake, "--dest", help="default: grades/<term>/<assignment>/submissions")
    arguments.output_file(intake, "--manifest", ".json", help="default: grades/<term>/<assignment>/intake.json")
    layout_option(intake)
    root_option(intake)
    intake.set_defaults(func=cmd_intake)

    export_cmd = add_command(
        sub,
        "export",
        help="write Gradescope, Canvas, nbgrader, feedback and report exports from stored results",
        example="course export transformers --formats canvas,feedback --roster gradebook.csv",
    )
    arguments.assignment(export_cmd, from_root=True)
    arguments.results_folder(export_cmd)
    arguments.output_folder(export_cmd, help="default: exports/ beside the results folder")
    export_cmd.add_argument(
        "--formats",
        type=arguments.formats,
        default=list(exports.FORMATS),
        help=f"comma-separated; default: all ({','.join(exports.FORMATS)})",
    )
    arguments.roster(export_cmd)
    arguments.database(export_cmd)
    _canvas_arguments(export_cmd)
    root_option(export_cmd)
    export_cmd.set_defaults(func=cmd_export)

    zip_cmd = add_command(
        sub,
        "gradescope-zip",
        help="build the Gradescope autograder zip for an assignment",
        example="course gradescope-zip transformers --out dist/gradescope/transformers.zip",
    )
    arguments.assignment(zip_cmd, from_root=True)
    arguments.output_file(zip_cmd, "--out", ".zip", help="default: dist/gradescope/<assignment>.zip", run=False)
    zip_cmd.set_defaults(func=cmd_gradescope_zip)
    root_option(zip_cmd)

    image = add_command(
        sub,
        "image",
        help="write the build context of the grader image of an assignment (Gradescope, PrairieLearn, "
        "container hosts, Kubernetes)",
        example="course image transformers --out build/image/transformers",
    )
    arguments.assignment(image, from_root=True)
    arguments.output_folder(image, help="default: build/image/<assignment>", run=False)
    image.add_argument(
        "--prairielearn-image",
        default=PRAIRIELEARN_IMAGE_PLACEHOLDER,
        help="the public engine image PrairieLearn pulls, for the question's info.json "
        "(e.g. myaccount/course-grader:engine)",
    )
    image.set_defaults(func=cmd_image)
    root_option(image)

    clean = add_command(
        sub,
        "clean",
        help="remove the demo's runs, release staging and bundles; with --term, "
        "also that term's grades (hand grades included)",
        example="course clean --term 2025-spring",
    )
    arguments.term(clean)
    clean.set_defaults(func=cmd_clean)
    root_option(clean)

    lock = add_command(
        sub,
        "lock",
        help="resolve the newest releases the requirements allow into locks/python3.X.txt, one per supported "
        "Python (make venv and the Gradescope zip install exactly these); --check compares this environment",
        example=["course lock --python 3.12", "course lock --check"],
    )
    arguments.pythons(lock)
    lock.add_argument(
        "--check", action="store_true", help="list what this environment has that its Python's lock does not say"
    )
    lock.add_argument(
        "--docs",
        action="store_true",
        help="only locks/docs.txt: the documentation tools (make docs), resolved against the Pythons' locks as they are",
    )
    lock.set_defaults(func=cmd_lock)
