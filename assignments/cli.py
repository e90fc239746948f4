"""The instructor command line: ``course <command>`` (or ``python -m assignments <command>``).

Every command is registered here and nowhere else; each ``cmd_*`` only turns arguments into a call of the
module that does the work and prints what came back. The file is longer than the others because it is the
one list of commands: splitting it would scatter that list again.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import time
from pathlib import Path

from assignments.handgrading import formgrader
from assignments.release import lms
from assignments.similarity import report as similarity_report

from . import exports, release
from .course import Course, default, points_report
from .escaping import one_line
from .exports import nbgrader_gradebook

# What `course --help` says to an instructor (the module docstring above is for developers).
USAGE = """Release, grade and export the course's notebook assignments.

A term: `course release` -> students submit -> `course grade <a> <LMS download>` (or `course autograde`)
-> `course formgrader <a>` for written answers -> `course export <a>`. Each run writes under
grades/<term>/<assignment>/ ([tool.course] term in pyproject.toml) and reads nothing from another
run; the demo has grades/demo/. `course clean` removes the demo's runs, build/ and dist/ (`--term T`
also that term's grades); `make clean` removes all of grades/, build/ and dist/."""

# --- grading ---------------------------------------------------------------------------------------------


def cmd_selftest(args) -> int:
    """Per assignment: the behaviour map's coverage, the contract parameters the hidden tests vary and those
    they hold fixed, the reference over seeds, the blank release, every variant through both real doors,
    every mutant (caught on its own question only) and the visible-check table; ``--verbose`` adds each
    mutant's failed tests and warnings about misleading ones."""
    from assignments.grading.selftest import checks as selftest

    problems = []
    for assignment in args.assignment or default().present():
        print(f"== {assignment}", flush=True)
        rows = selftest.behaviour_map(assignment) or []
        found = selftest.behaviour_map_problems(assignment)
        print(f"  {selftest.coverage_line(rows)}" + (" (PROBLEM)" if found else ""), flush=True)
        problems += found
        found = selftest.contract_parameter_problems(assignment)
        lines = selftest.parameter_lines(selftest.contract_parameters(assignment) or [])
        lines[0] += " (PROBLEM)" if found else ""
        print("\n".join(f"  {line}" for line in lines), flush=True)
        problems += found
        found = selftest.check_reference(assignment, range(args.repeats))
        print(f"  reference over seeds 0..{args.repeats - 1}: {'PROBLEM' if found else 'full marks'}", flush=True)
        problems += found
        if not args.skip_blank:
            found = selftest.check_blank(assignment)
            print(f"  blank release: {'PROBLEM' if found else 'zero'}", flush=True)
            problems += found
        if not args.skip_variants:
            problems += _selftest_variants(assignment, selftest)
        problems += _selftest_mutants(assignment, selftest, rows, args)
    for problem in problems:
        print(problem)
    print("self-test passed" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


def _selftest_variants(assignment, selftest) -> list[str]:
    """Every variant pack through both real doors; one line per pack and door."""
    problems = []
    with tempfile.TemporaryDirectory(prefix=f"selftest-{assignment}-") as folder:
        graded = selftest.grade_variant_packs(assignment, Path(folder))
    for chosen, result in graded:
        found = selftest.variant_problems(chosen, result)
        print(
            f"  variants {', '.join(v.name for v in chosen)}: {result.door} door "
            f"{'PROBLEM' if found else 'full marks'}",
            flush=True,
        )
        problems += found
    if not graded:
        print("  variants: none", flush=True)
    return problems


def _selftest_mutants(assignment, selftest, rows, args) -> list[str]:
    """One line per mutant (caught on its own question only?) and the visible-check table."""
    problems, table, results = [], [], []
    chosen = [m for m in selftest.mutants(assignment) if not args.mutant or m.name in args.mutant]
    for mutant, result in selftest.grade_mutants(assignment, chosen):
        if isinstance(result, selftest.MutantError):
            problems.append(str(result))
            print(f"  {mutant.name}: PROBLEM (not graded: {result})", flush=True)
            continue
        found = selftest.mutant_problems(mutant, result) + selftest.contract_problems(mutant, result)
        print(f"  {mutant.name}: {'PROBLEM' if found else f'caught on {mutant.question} only'}", flush=True)
        if args.verbose:
            for test, message in selftest.failed_tests(mutant, result):
                print(f"      fails {test}: {message.splitlines()[0] if message else ''}")
            for warning in selftest.misleading_failures(mutant, result, rows):
                print(f"      WARNING {warning}")
        problems += found
        results.append(result)
        failed = selftest.visible_check_failed(result)
        table.append((mutant.name, "fails" if failed else "passes", mutant.contract or "-"))
    if results and not args.mutant:
        uncaught = selftest.uncaught_tests(results)
        print(f"  hidden tests no mutant fails: {', '.join(uncaught) if uncaught else 'none'}", flush=True)
        problems += [f"{assignment}: hidden test {name} fails for no mutant" for name in uncaught]
    if table:
        width = max(len(name) for name, _, _ in table)
        print(
            f"  visible check below each mutant's TODO (a contract mutant must fail it):\n"
            f"    {'mutant':<{width}}  visible check  contract rule"
        )
        for name, outcome, contract in table:
            print(f"    {name:<{width}}  {outcome:<13}  {contract}")
    return problems


def cmd_grade(args) -> int:
    """Standalone door over one notebook, a folder or an LMS zip; results, exports and a table."""
    from .batches import Shard
    from .results import table
    from .workflow import export_all, grade_class

    out = Path(args.out or default().assignment(args.assignment).grades_dir)
    try:
        shard = Shard.parse(args.shard) if args.shard else None
    except ValueError as error:
        print(f"course grade: {error}")
        return 2
    results = grade_class(args.assignment, Path(args.submissions), out, workers=args.workers, shard=shard)
    print(table.score_table(results, f"{args.assignment}: standalone grader" + (f", shard {shard}" if shard else "")))
    if shard is None:
        export_all(args.assignment, out)
        print(f"results: {out / 'results'}\nexports: {out / 'exports'}")
    else:
        print(
            f"results: {out / 'results'} (one shard: `course merge {args.assignment} <every shard's run>` "
            "joins them and writes the exports)"
        )
    return 0


def cmd_merge(args) -> int:
    """The shards' runs joined into one run, exported as a whole-class run is."""
    from .batches import MergeRefused
    from .results import table
    from .workflow import merge

    out = Path(args.out or default().assignment(args.assignment).grades_dir)
    try:
        results = merge(args.assignment, args.runs, out)
    except MergeRefused as error:
        print(f"course merge refused: {error}")
        return 1
    print(table.score_table(results, f"{args.assignment}: {len(args.runs)} shard(s) merged"))
    print(f"results: {out / 'results'}\nexports: {out / 'exports'}")
    return 0


def cmd_prairielearn(args) -> int:
    """PrairieLearn's external-grading entry point: the job in /grade, results in /grade/results/results.json."""
    from .prairielearn_runner import run

    run(args.assignment, args.job)
    return 0


def cmd_autograde(args) -> int:
    """nbgrader door: each notebook repaired (`course repair`), real `nbgrader autograde` per student, read
    back from its gradebook, then (unless --no-cross-check) a second opinion from the standalone door on
    every question (of the notebooks as sent)."""
    from assignments.grading.doors.nbgrader import door as nbgrader_door

    from .results import table
    from .workflow import attach_intake, collect

    out = Path(args.out or default().assignment(args.assignment).nbgrader_door_dir)
    jobs, found = collect(args.assignment, Path(args.submissions), out)
    submissions = {job.student: Path(job.path) for job in jobs}
    course = nbgrader_door.course_folder(out)
    results = nbgrader_door.autograde_repaired(
        args.assignment, submissions, out, root=course, timeout=args.timeout or nbgrader_door.NOTEBOOK_TIMEOUT_S
    )
    disagreements = (
        []
        if args.no_cross_check
        else nbgrader_door.cross_check(args.assignment, results, submissions, out / "standalone", workers=args.workers)
    )
    results = attach_intake(results, found, out, door="nbgrader")
    print(table.score_table(results, f"{args.assignment}: nbgrader autograde"))
    if not args.no_cross_check:
        print(
            "the standalone door agrees on every question"
            if not disagreements
            else "DOORS DISAGREE (the standalone door is the trusted one):\n  " + "\n  ".join(disagreements)
        )
    print(f"results: {out / 'results'}\nnbgrader course folder: {course}")
    return 0


def cmd_repair(args) -> int:
    """Repaired copies for nbgrader (the release's metadata restored, UTF-8) and a report of what was done."""
    from assignments.grading.doors.nbgrader import repair

    from .workflow import collect

    out = Path(args.out or repair.folder(default().assignment(args.assignment).grades_dir))
    jobs, _ = collect(args.assignment, Path(args.submissions), out)
    repairs = repair.repair_class(args.assignment, {job.student: Path(job.path) for job in jobs}, out)
    print(repair.report_table(repairs, f"{args.assignment}: repaired for nbgrader (release cells found, per method)"))
    print(
        f"{repair.summary(repairs)}\nreport: {out / repair.REPORT}\nrepaired copies: {out / 'submitted'} "
        f"(nbgrader's layout: copy its folders into your course's submitted/, then "
        f"`nbgrader autograde {args.assignment}`)"
    )
    return 0


def cmd_demo(args) -> int:
    from assignments.demo.run import demo

    return demo(workers=args.workers, skip_release=args.skip_release, buggy=args.buggy)


def cmd_stand_in_hub(args) -> int:
    from assignments.demo.standin_hub import main as write_hub

    return write_hub([str(args.directory)])


# --- release, catalog, LMS bundles, hygiene -------------------------------------------------------------


def _course(args) -> Course:
    return Course(Path(args.root)) if getattr(args, "root", None) else default()


def cmd_release(args) -> int:
    course = _course(args)
    if args.check:
        with tempfile.TemporaryDirectory(prefix="release-check-", dir=_mkdir(course.build_dir)) as area:
            outcome = release.release(
                args.assignment or None,
                course,
                validate=not args.no_validate,
                execute_solutions=not args.no_execute,
                jobs=args.jobs,
                commit_output=False,
                stage_into=Path(area),
                sync=False,
                bundles=False,
            )
            problems = outcome.problems or release.drift(
                course, Path(area), [a for a in (args.assignment or release.available(course)[0])]
            )
        for problem in problems:
            print(problem)
        print(
            "release/ and solutions/ match the source"
            if not problems
            else f"{len(problems)} problem(s); run `course release` to regenerate"
        )
        return 1 if problems else 0
    outcome = release.release(
        args.assignment or None,
        course,
        validate=not args.no_validate,
        execute_solutions=not args.no_execute,
        jobs=args.jobs,
        bundles=not args.no_lms,
        keep_stage=args.keep_stage,
    )
    for problem in outcome.problems:
        print(problem)
    for problem in outcome.after_commit:
        print(problem)
    if outcome.ok and outcome.after_commit:
        print(
            f"released {', '.join(outcome.released)}, but {len(outcome.after_commit)} problem(s) after that; "
            "fix them and run `course lms`"
        )
        return 1
    if outcome.ok:
        print(f"released {', '.join(outcome.released) or 'nothing'}")
        if args.no_validate or args.no_execute:
            print(
                "note: --no-validate/--no-execute output is for quick checks; release without flags before committing"
            )
        return 0
    print(f"release refused: {len(outcome.problems)} problem(s); release/ and solutions/ were not changed")
    return 1


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def cmd_catalog(args) -> int:
    course = _course(args)
    ok = True
    blocks = []
    for name in course.names():
        text, fine = points_report(course.assignment(name))
        blocks.append(text)
        ok &= fine
    print("\n\n".join(blocks))
    total = sum(course.assignment(name).total_points for name in course.present())
    print(f"\ncourse total: {total:g} points (the sum of the source notebooks' graded cells)")
    return 0 if ok else 1


def cmd_lms(args) -> int:
    course = _course(args)
    names = args.assignment or [n for n in course.names() if (course.release_dir / n).is_dir()]
    status = 0
    for name in names:
        try:
            path = lms.build_bundle(name, course.release_dir, course.dist_dir, course.root)
            print(f"{name}: {course.display(path)}")
        except FileNotFoundError as error:
            print(f"{name}: {error}")
            status = 1
    if not names:
        print("no release folders yet; run `course release`")
        status = 1
    return status


def cmd_hygiene(args) -> int:
    course = _course(args)
    names = args.assignment or release.available(course)[0]
    problems = release.hygiene_problems(course, names)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s)" if problems else f"clean: {', '.join(names) or 'no source notebooks'}")
    return 1 if problems else 0


def cmd_claims(args) -> int:
    """Every claims problem of the named assignments, enforced or not (release/claims.py)."""
    course = _course(args)
    names = args.assignment or release.available(course)[0]
    problems = [
        line for name in names for line in release.claims.check_assignment(course.assignment(name), course.display)
    ]
    for problem in problems:
        print(problem)
    pending = [name for name in names if name in release.claims.NOT_YET_ENFORCED]
    print(
        (f"{len(problems)} problem(s)" if problems else f"every claim sourced: {', '.join(names)}")
        + (f"; not enforced by the release yet: {', '.join(pending)}" if pending else "")
    )
    return 1 if problems else 0


def _add_release_commands(sub) -> None:
    cmd = sub.add_parser(
        "release",
        help="regenerate release/, solutions/ and dist/lms/ from source/",
        description="Hygiene checks, nbgrader generate_assignment, validate (source: all tests "
        "pass; release: none pass), executed solutions, LMS bundles. Nothing in "
        "release/ or solutions/ changes unless every step succeeds.",
    )
    cmd.add_argument("assignment", nargs="*", help="default: every assignment with a source notebook")
    cmd.add_argument("--no-validate", action="store_true", help="skip nbgrader validate (quick checks only)")
    cmd.add_argument(
        "--no-execute", action="store_true", help="write solutions without executing them (quick checks only)"
    )
    cmd.add_argument(
        "--check",
        action="store_true",
        help="regenerate into a scratch folder and report drift from release/ and solutions/; changes nothing",
    )
    cmd.add_argument("--jobs", type=int, help="parallel notebook runs (default: CPU count, at most 8)")
    cmd.add_argument("--no-lms", action="store_true", help="do not rebuild dist/lms/<assignment>.zip")
    cmd.add_argument("--keep-stage", action="store_true", help="keep the staging folder under build/")
    cmd.set_defaults(func=cmd_release)
    _root_option(cmd)

    cat = sub.add_parser("catalog", help="assignments, their questions (grade_id, kind, points) and totals")
    cat.set_defaults(func=cmd_catalog)
    _root_option(cat)

    bundle = sub.add_parser("lms", help="rebuild dist/lms/<assignment>.zip from the committed release/")
    bundle.add_argument("assignment", nargs="*", help="default: every released assignment")
    bundle.set_defaults(func=cmd_lms)
    _root_option(bundle)

    check = sub.add_parser("hygiene", help="check source notebooks (what `course release` checks first)")
    check.add_argument("assignment", nargs="*", help="default: every assignment with a source notebook")
    check.set_defaults(func=cmd_hygiene)
    _root_option(check)

    listing = sub.add_parser(
        "claims",
        help="list claims without a source (figures, findings) in source notebooks and model answers",
        description="Each claim in prose, prompts, model answers and mark schemes carries a footnote [^key] "
        "defined as measured, derived, estimate or cited (source/README.md, Claims and their sources). "
        "`course release` and `course hygiene` refuse an assignment with problems, except those not enforced yet.",
    )
    listing.add_argument("assignment", nargs="*", help="default: every assignment with a source notebook")
    listing.set_defaults(func=cmd_claims)
    _root_option(listing)


def _root_option(parser) -> None:
    parser.add_argument(
        "--root",
        help="course folder holding source/, release/, pyproject.toml and nbgrader_config.py (default: this checkout)",
    )


# --- intake and exports ------------------------------------------------------------------------------


def _formats(text: str) -> list[str]:
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in chosen if name not in exports.FORMATS]
    if unknown:
        raise SystemExit(f"unknown export format(s): {', '.join(unknown)}; choose from {', '.join(exports.FORMATS)}")
    return chosen


def _canvas_options(args):
    from .exports import canvas

    return canvas.options(
        default().assignment(args.assignment),
        args.canvas_assignment,
        args.canvas_id,
        args.ungraded_written,
        args.per_question,
        args.canvas_late_policy,
    )


def cmd_export(args) -> int:
    problems: list[str] = []
    formats = _formats(args.formats)
    try:
        written = exports.export(
            args.assignment,
            args.results,
            args.out,
            formats,
            args.roster,
            args.db,
            strict=False,
            problems=problems,
            canvas_options=_canvas_options(args) if "canvas" in formats else None,
            excused=args.excuse or [],
        )
    except (FileNotFoundError, LookupError, RuntimeError, ValueError) as error:
        print(f"export failed: {error}")
        return 1
    exports.print_written(written)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


def cmd_gradescope_zip(args) -> int:
    from assignments.gradescope.bundle import build_autograder_zip

    out = args.out or default().dist_dir / "gradescope" / f"{args.assignment}.zip"
    try:
        build_autograder_zip(args.assignment, out)
    except FileNotFoundError as error:
        print(f"cannot build the Gradescope zip: {error}")
        return 1
    print(f"wrote {out} (upload it as the autograder of a Gradescope programming assignment)")
    return 0


def cmd_image(args) -> int:
    from .grader_image import PRAIRIELEARN, write_context

    out = Path(args.out or default().build_dir / "image" / args.assignment)
    try:
        write_context(args.assignment, out)
    except FileNotFoundError as error:
        print(f"cannot write the grader image's build context: {error}")
        return 1
    print(
        f"wrote {out}: build it with `docker build -t course-grader:{args.assignment} {out}` (or podman; "
        f"`make image` does it here), and `--target engine` for the image without the assignment, which "
        f"PrairieLearn pulls with {out / PRAIRIELEARN} as the question's tests/ folder (README, The grader image)"
    )
    return 0


def cmd_clean(args) -> int:
    """Remove what can be made again (the demo's runs, release staging, bundles) and, only when named,
    one term's runs: those hold hand grades that exist nowhere else."""
    import shutil

    course = _course(args)
    targets = [course.demo_dir, course.build_dir, course.dist_dir]
    if args.term:
        term = course.root / "grades" / args.term
        if args.term in (".", "..", "") or "/" in args.term or not term.is_dir():
            print(f"no term folder grades/{args.term}")
            return 1
        targets.append(term)
    for target in targets:
        if target.exists():
            shutil.rmtree(target)
            print(f"removed {course.display(target)}")
    return 0


def cmd_lock(args) -> int:
    from assignments.gradescope import lock as lockfile

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
    from . import intake
    from .results import store

    dest = args.dest or store.grades_dir(args.assignment) / "submissions"
    try:
        result = intake.collect(args.input, args.assignment, dest)
    except intake.IntakeError as error:
        print(f"intake failed: {error}")
        return 1
    manifest = result.save(args.manifest or store.intake_manifest(args.assignment))
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
        choices=("zero", "omit"),
        default=None,
        help="a written answer not graded yet counts 0, or leaves that student's Canvas cell "
        "empty; default: [tool.course.canvas] ungraded_written, else zero",
    )
    parser.add_argument(
        "--per-question",
        action="store_true",
        help="add one Canvas column per question (Canvas makes each a new assignment)",
    )
    parser.add_argument(
        "--canvas-late-policy",
        choices=("course", "canvas"),
        default=None,
        help="who deducts for lateness: course (this course's late policy, in every export; Canvas' own "
        "Late Policy is off) or canvas (scores before lateness; Canvas' Late Policy deducts); "
        "default: [tool.course.canvas] late_policy, else course, with a warning",
    )
    parser.add_argument(
        "--excuse",
        action="append",
        metavar="QUESTION or STUDENT:QUESTION",
        help="leave a question out of score and maximum, for everyone or one student "
        "(repeatable; adds to [tool.course.excused])",
    )


def _add_export_commands(sub) -> None:
    intake = sub.add_parser(
        "intake",
        help="turn an LMS download (zip, folder or .ipynb) into one notebook "
        "per student and report duplicates, late and wrong files",
    )
    intake.add_argument("assignment")
    intake.add_argument(
        "input", type=Path, help="a .ipynb, a folder, a Canvas/Moodle bulk-download zip or a Gradescope export"
    )
    intake.add_argument("--dest", type=Path, default=None, help="default: grades/<term>/<assignment>/submissions")
    intake.add_argument("--manifest", type=Path, default=None, help="default: grades/<term>/<assignment>/intake.json")
    intake.set_defaults(func=cmd_intake)

    export_cmd = sub.add_parser(
        "export", help="write Gradescope, Canvas, nbgrader, feedback and report exports from stored results"
    )
    export_cmd.add_argument("assignment")
    export_cmd.add_argument(
        "--results",
        type=Path,
        default=None,
        help="a run's results folder; default: the term's, grades/<term>/<assignment>/results "
        "(everything else is read from the same run folder)",
    )
    export_cmd.add_argument("--out", type=Path, default=None, help="default: exports/ beside the results folder")
    export_cmd.add_argument(
        "--formats",
        default=",".join(exports.FORMATS),
        help=f"comma-separated; default: all ({','.join(exports.FORMATS)})",
    )
    export_cmd.add_argument(
        "--roster",
        type=Path,
        default=None,
        help="an intake manifest, or a Canvas gradebook export (its names, SIS ids and sections); "
        "default: intake.json beside the results folder",
    )
    export_cmd.add_argument(
        "--db",
        default=None,
        help="nbgrader gradebook URL; default: the run's own (nbgrader/course/gradebook.db beside the results folder)",
    )
    _canvas_arguments(export_cmd)
    export_cmd.set_defaults(func=cmd_export)

    zip_cmd = sub.add_parser("gradescope-zip", help="build the Gradescope autograder zip for an assignment")
    zip_cmd.add_argument("assignment")
    zip_cmd.add_argument("--out", type=Path, default=None, help="default: dist/gradescope/<assignment>.zip")
    zip_cmd.set_defaults(func=cmd_gradescope_zip)

    image = sub.add_parser(
        "image",
        help="write the build context of the grader image of an assignment (Gradescope, PrairieLearn, "
        "container hosts, Kubernetes)",
    )
    image.add_argument("assignment")
    image.add_argument("--out", type=Path, default=None, help="default: build/image/<assignment>")
    image.set_defaults(func=cmd_image)

    clean = sub.add_parser(
        "clean",
        help="remove the demo's runs, release staging and bundles; with --term, "
        "also that term's grades (hand grades included)",
    )
    clean.add_argument("--term", default=None, help="a term folder of grades/ to remove as well")
    clean.set_defaults(func=cmd_clean)
    _root_option(clean)

    lock = sub.add_parser(
        "lock",
        help="resolve the newest releases the requirements allow into locks/python3.X.txt, one per supported "
        "Python (make venv and the Gradescope zip install exactly these); --check compares this environment",
    )
    lock.add_argument("--python", action="append", metavar="3.X", help="only this Python's lock (repeatable)")
    lock.add_argument(
        "--check", action="store_true", help="list what this environment has that its Python's lock does not say"
    )
    lock.set_defaults(func=cmd_lock)


# --- written answers and similarity --------------------------------------------------------------------


def cmd_formgrader(args) -> int:
    root = Path(args.root) if args.root else nbgrader_gradebook.course_folder(args.assignment)
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


def _add_formgrader_command(sub) -> None:
    parser = sub.add_parser(
        "formgrader",
        help="start nbgrader's formgrader (127.0.0.1, with a token) on the "
        "course folder holding the assignment's gradebook",
    )
    parser.add_argument("assignment")
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="nbgrader course folder; default: this term's run of the assignment "
        "(grades/<term>/<assignment>/nbgrader/course, made by `course grade`)",
    )
    parser.add_argument("--port", type=int, default=None, help="default: a free port")
    parser.set_defaults(func=cmd_formgrader)


def cmd_written(args) -> int:
    """Every student's written answers with their evidence: HTML and PDF per student, outline.json, and one
    page per question across the class."""
    from assignments.handgrading.written import written

    from .escaping import one_line

    out = Path(args.out or default().assignment(args.assignment).grades_dir / "written")
    try:
        outline, refused = written(args.assignment, Path(args.submissions), out, pdf=not args.no_pdf)
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
    print(f"per student: {out / 'students'}\nper question: {out / 'questions'}\noutline: {out / 'outline.json'}")
    return 0


def _add_written_command(sub) -> None:
    parser = sub.add_parser(
        "written",
        help="one PDF (and HTML) per student of every written answer with its "
        "evidence as submitted, outline.json, and one page per question",
    )
    parser.add_argument("assignment")
    parser.add_argument("submissions", help="an .ipynb, a folder of them, or an LMS zip (as for `course grade`)")
    parser.add_argument(
        "--out", type=Path, default=None, help="default: this term's run, grades/<term>/<assignment>/written"
    )
    parser.add_argument("--no-pdf", action="store_true", help="HTML only (no Chromium needed)")
    parser.set_defaults(func=cmd_written)


def cmd_similarity(args) -> int:
    from .escaping import one_line

    out = Path(args.out) if args.out else default().assignment(args.assignment).similarity_dir
    started = time.perf_counter()
    comparison = similarity_report.similarity_report(
        args.assignment, Path(args.submissions), out, args.top, args.workers
    )
    print(similarity_report.table(comparison, args.top))
    for student in comparison.students:
        if student.problem is not None:
            print(f"not compared: {one_line(student.student)}: {one_line(student.problem)}")
        for note in student.notes:
            print(f"note: {one_line(student.student)}: {one_line(note)}")
    print(
        f"report: {out / 'similarity.html'}\ndata: {out / 'similarity.json'}\n({time.perf_counter() - started:.1f} s)"
    )
    return 0


def _add_similarity_command(sub) -> None:
    parser = sub.add_parser(
        "similarity",
        help="compare the class's answer cells pairwise and write a ranked HTML report of the most similar pairs",
    )
    parser.add_argument("assignment")
    parser.add_argument("submissions", help="an .ipynb, a folder of them, or an LMS bulk-download zip")
    parser.add_argument("--out", help="output folder (default: grades/<term>/<assignment>/similarity)")
    parser.add_argument(
        "--top",
        type=int,
        default=similarity_report.TOP,
        help=f"pairs shown side by side (default {similarity_report.TOP})",
    )
    parser.add_argument("--workers", type=int, default=None, help="processes reading notebooks (default: CPU cores)")
    parser.set_defaults(func=cmd_similarity)


# --- the parser ----------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    from assignments.grading.doors.nbgrader.door import NOTEBOOK_TIMEOUT_S

    parser = argparse.ArgumentParser(
        prog="course", description=USAGE, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)

    selftest = sub.add_parser("selftest", help="mutation-test the hidden suites (reference, blank, mutants)")
    selftest.add_argument("assignment", nargs="*", help="default: every assignment")
    selftest.add_argument("--mutant", action="append", help="only this mutant (repeatable)")
    selftest.add_argument("--repeats", type=int, default=1, help="grade the reference with seeds 0..N-1")
    selftest.add_argument("--skip-blank", action="store_true")
    selftest.add_argument(
        "--skip-variants",
        action="store_true",
        help="do not grade the variants through the two real doors (the slow part)",
    )
    selftest.add_argument(
        "--verbose",
        action="store_true",
        help="each mutant's failed tests, and a warning for a failed test that the behaviour "
        "map does not pair with that mutant (its message may point at another mistake)",
    )
    selftest.set_defaults(func=cmd_selftest)

    grade = sub.add_parser("grade", help="grade submissions with the standalone (sandboxed) grader")
    grade.add_argument("assignment")
    grade.add_argument("submissions", help="an .ipynb, a folder of them, or an LMS bulk-download zip")
    grade.add_argument("--workers", type=int, default=None, help="parallel workers (default: CPU cores)")
    grade.add_argument("--out", help="output folder (default: grades/<term>/<assignment>)")
    grade.add_argument(
        "--shard",
        metavar="i/N",
        help="grade only shard i of N (0 <= i < N; by a hash of the student key, the same on every machine); "
        "`course merge` joins the shards' runs",
    )
    grade.set_defaults(func=cmd_grade)

    merge = sub.add_parser(
        "merge", help="join the runs of a class graded as shards (`course grade --shard`) into one run, and export it"
    )
    merge.add_argument("assignment")
    merge.add_argument("runs", nargs="+", type=Path, help="each shard's run folder (its --out)")
    merge.add_argument("--out", help="the merged run's folder (default: grades/<term>/<assignment>)")
    merge.set_defaults(func=cmd_merge)

    prairielearn = sub.add_parser(
        "prairielearn",
        help="grade one PrairieLearn external-grading job (the grader image's entry point for PrairieLearn)",
    )
    prairielearn.add_argument("assignment")
    prairielearn.add_argument("--job", type=Path, default=Path("/grade"), help="the job folder (default: /grade)")
    prairielearn.set_defaults(func=cmd_prairielearn)

    repair = sub.add_parser(
        "repair",
        help="repair damaged notebooks (lost nbgrader metadata, another encoding) "
        "so that plain `nbgrader autograde` grades them",
    )
    repair.add_argument("assignment")
    repair.add_argument("submissions", help="an .ipynb, a folder of them, or an LMS bulk-download zip")
    repair.add_argument("--out", help="output folder (default: grades/<term>/<assignment>/repair)")
    repair.set_defaults(func=cmd_repair)

    autograde = sub.add_parser(
        "autograde",
        help="grade the same inputs through real `nbgrader autograde`, "
        "each notebook repaired first (as `course repair`)",
    )
    autograde.add_argument("assignment")
    autograde.add_argument("submissions", help="an .ipynb, a folder of them, or an LMS bulk-download zip")
    autograde.add_argument("--out", help="output folder (default: grades/<term>/<assignment>/nbgrader)")
    autograde.add_argument(
        "--timeout",
        type=float,
        default=None,
        help=f"seconds one student's nbgrader run may take (default: {NOTEBOOK_TIMEOUT_S:g})",
    )
    autograde.add_argument(
        "--workers",
        type=int,
        default=None,
        help="parallel workers of the standalone second opinion (default: CPU cores)",
    )
    autograde.add_argument(
        "--no-cross-check",
        action="store_true",
        help="skip the standalone door's second opinion (faster; no disagreement check)",
    )
    autograde.set_defaults(func=cmd_autograde)

    demo = sub.add_parser(
        "demo",
        help="the main job on bundled defaults: release, grade a demo class through both doors, export everything",
    )
    demo.add_argument("--workers", type=int, default=None)
    demo.add_argument("--buggy", type=int, default=3, help="buggy students per assignment")
    demo.add_argument("--skip-release", action="store_true", help="use the committed release/ as is")
    demo.set_defaults(func=cmd_demo)

    hub = sub.add_parser(
        "stand-in-hub",
        help="write tiny models and small datasets under the notebooks' hub ids "
        "into a local Hugging Face cache (for offline rehearsals)",
    )
    hub.add_argument("directory")
    hub.set_defaults(func=cmd_stand_in_hub)

    _add_release_commands(sub)
    _add_export_commands(sub)
    _add_formgrader_command(sub)
    _add_similarity_command(sub)
    _add_written_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from .grading.testkit.errors import SandboxRefused

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except SandboxRefused as error:  # any command that grades: nothing was graded, and this says why
        print(f"not graded: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
