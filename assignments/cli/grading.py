"""``course selftest``, ``grade``, ``merge``, ``prairielearn``, ``repair``, ``autograde``, ``demo`` and
``stand-in-hub``: the grading commands, each forwarding to its wing."""

from __future__ import annotations

import sys
from pathlib import Path

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, layout_option, root_option
from assignments.course import default


def cmd_selftest(args) -> int:
    from assignments.grading.selftest.report import selftest

    names = args.assignment or default().present()
    return selftest(
        [default().assignment(name) for name in names],
        args.repeats,
        args.skip_blank,
        args.skip_variants,
        args.mutant,
        args.verbose,
    )


def cmd_grade(args) -> int:
    """Standalone door over one notebook, a folder or an LMS zip; results, exports and a table."""
    from assignments.results import table
    from assignments.runs.folder import Run
    from assignments.workflow import export_all, grade_class

    assignment = course_of(args).assignment(args.assignment)
    run = Run.at(Path(args.out).absolute()) if args.out else Run.of_term(assignment)  # nbgrader wants it absolute
    shard = args.shard  # a Shard already (arguments.shard), or None
    results = grade_class(
        assignment, Path(args.submissions), run, workers=args.workers, shard=shard, layout=args.layout
    )
    print(table.score_table(results, f"{args.assignment}: standalone grader" + (f", shard {shard}" if shard else "")))
    if shard is None:
        export_all(assignment, run)
        print(f"results: {run.results}\nexports: {run.exports}")
    else:
        print(
            f"results: {run.results} (one shard: `course merge {args.assignment} <every shard's run>` "
            "joins them and writes the exports)"
        )
    return 0


def cmd_merge(args) -> int:
    """The shards' runs joined into one run, exported as a whole-class run is."""
    from assignments.escaping import one_line
    from assignments.results import table
    from assignments.runs.batches import MergeRefused
    from assignments.runs.folder import Run
    from assignments.workflow import merge

    assignment = course_of(args).assignment(args.assignment)  # --root's course when given (a cluster's merge job)
    run = Run.at(Path(args.out).absolute()) if args.out else Run.of_term(assignment)  # nbgrader wants it absolute
    try:
        results = merge(assignment, [Run.at(Path(path).absolute()) for path in args.runs], run, args.allow_missing)
    except MergeRefused as error:
        print(f"course merge refused: {one_line(error, limit=4000)}")
        return 2
    print(table.score_table(results, f"{args.assignment}: {len(args.runs)} shard(s) merged"))
    print(f"results: {run.results}\nexports: {run.exports}")
    return 0


def cmd_prairielearn(args) -> int:
    """PrairieLearn's external-grading entry point: the job in /grade, results in /grade/results/results.json.
    With --print-timeout: the job timeout the question's info.json needs, derived from the grader's limits."""
    if args.print_timeout:
        from assignments.platforms.prairielearn.question import job_timeout

        print(job_timeout())
        return 0
    if not args.assignment:
        print(
            "course prairielearn: name the assignment to grade (e.g. `course prairielearn transformers`)",
            file=sys.stderr,
        )
        return 2
    if args.quota:
        from assignments.platforms.prairielearn.quota import grade_under_quota, unavailable

        why = unavailable()
        if why:
            print(f"course prairielearn --quota: {why} (Linux, as root)", file=sys.stderr)
            return 2
        return grade_under_quota(args.assignment, args.job)
    from assignments.platforms.prairielearn.runner import main

    return main(args.assignment, args.job)  # non-zero where the grader failed: PrairieLearn fails the job


def cmd_autograde(args) -> int:
    from assignments.runs.folder import Run
    from assignments.workflow import autograde_class

    assignment = course_of(args).assignment(args.assignment)
    run = Run.autograde(args.out) if args.out else Run.autograde_of_term(assignment)
    autograde_class(
        assignment,
        Path(args.submissions),
        run,
        args.timeout,
        not args.no_cross_check,
        args.workers,
        layout=args.layout,
    )
    return 0


def cmd_repair(args) -> int:
    """Repaired copies for nbgrader (the release's metadata restored, UTF-8) and a report of what was done."""
    from assignments.grading.doors.nbgrader import repair
    from assignments.runs.folder import Run
    from assignments.workflow import collect

    assignment = course_of(args).assignment(args.assignment)
    out = Path(args.out or Run.of_term(assignment).repair_alone)
    jobs, _ = collect(args.assignment, Path(args.submissions), Run(out), args.layout)
    repairs = repair.repair_class(assignment, {job.student: Path(job.path) for job in jobs}, out)
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


def add_commands(sub) -> None:
    from assignments.grading.doors.nbgrader.door import NOTEBOOK_TIMEOUT_S

    selftest = add_command(
        sub,
        "selftest",
        help="mutation-test the hidden suites (reference, blank, mutants)",
        example="course selftest transformers --mutant block_pre_layernorm --verbose",
    )
    arguments.assignment(selftest, several=True, default_help="every assignment")
    arguments.mutants(selftest)
    selftest.add_argument("--repeats", type=arguments.count, default=1, help="grade the reference with seeds 0..N-1")
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

    grade = add_command(
        sub,
        "grade",
        help="grade submissions with the standalone (sandboxed) grader",
        example="course grade transformers submissions.zip --workers 4",
    )
    arguments.assignment(grade, from_root=True)
    arguments.download(grade)
    grade.add_argument("--workers", type=arguments.count, default=None, help="parallel workers (default: CPU cores)")
    arguments.output_folder(grade, help="output folder (default: grades/<term>/<assignment>)")
    layout_option(grade)
    grade.add_argument(
        "--shard",
        metavar="i/N",
        type=arguments.shard,
        help="grade only shard i of N (0 <= i < N; by a hash of the student key, the same on every machine); "
        "`course merge` joins the shards' runs",
    )
    root_option(grade)
    grade.set_defaults(func=cmd_grade)

    merge = add_command(
        sub,
        "merge",
        help="join the runs of a class graded as shards (`course grade --shard`) into one run, and export it",
        example=[
            "course grade transformers submissions.zip --shard 0/2 --out shards/0",
            "course grade transformers submissions.zip --shard 1/2 --out shards/1",
            "course merge transformers shards/0 shards/1",
        ],
    )
    arguments.assignment(merge, from_root=True)
    arguments.run_folders(merge)
    arguments.output_folder(merge, help="the merged run's folder (default: grades/<term>/<assignment>)")
    merge.add_argument(
        "--allow-missing",
        action="store_true",
        help="merge although students the intake lists have no record in the runs (a warning names them; "
        "no export has a row for them); without it such a merge is refused and names the shards to grade again",
    )
    root_option(merge)
    merge.set_defaults(func=cmd_merge)

    prairielearn = add_command(
        sub,
        "prairielearn",
        help="grade one PrairieLearn external-grading job (the grader image's entry point for PrairieLearn)",
        example=[
            "course prairielearn transformers --job /grade",
            "course prairielearn transformers --job build/pl-job --quota",
            "course prairielearn --print-timeout",
        ],
    )
    arguments.assignment(
        prairielearn, also=arguments.job_assignments, optional=True, default_help="needed unless --print-timeout"
    )
    arguments.job_folder(prairielearn)
    prairielearn.add_argument(
        "--print-timeout",
        action="store_true",
        help="print the job timeout in seconds that a question's info.json needs (the grader's wall-clock "
        "ceiling plus its own work at PrairieLearn's 0.9 CPU) and exit",
    )
    prairielearn.add_argument(
        "--quota",
        action="store_true",
        help="try the job as PrairieLearn's grading host runs it, under its 0.9 CPU and 2 GiB, and say how long it "
        "took against the question's timeout (Linux, as root)",
    )
    prairielearn.set_defaults(func=cmd_prairielearn)

    repair = add_command(
        sub,
        "repair",
        help="repair damaged notebooks (lost nbgrader metadata, another encoding) "
        "so that plain `nbgrader autograde` grades them",
        example="course repair transformers submissions.zip --out repaired",
    )
    arguments.assignment(repair)
    arguments.download(repair)
    arguments.output_folder(repair, help="output folder (default: grades/<term>/<assignment>/repair)")
    layout_option(repair)
    repair.set_defaults(func=cmd_repair)

    autograde = add_command(
        sub,
        "autograde",
        help="grade the same inputs through real `nbgrader autograde`, "
        "each notebook repaired first (as `course repair`)",
        example="course autograde transformers submissions.zip --timeout 900",
    )
    arguments.assignment(autograde)
    arguments.download(autograde)
    arguments.output_folder(autograde, help="output folder (default: grades/<term>/<assignment>/nbgrader)")
    layout_option(autograde)
    autograde.add_argument(
        "--timeout",
        type=arguments.seconds,
        default=None,
        help=f"seconds one student's nbgrader run may take (default: {NOTEBOOK_TIMEOUT_S:g})",
    )
    autograde.add_argument(
        "--workers",
        type=arguments.count,
        default=None,
        help="parallel workers of the standalone second opinion (default: CPU cores)",
    )
    autograde.add_argument(
        "--no-cross-check",
        action="store_true",
        help="skip the standalone door's second opinion (faster; no disagreement check)",
    )
    autograde.set_defaults(func=cmd_autograde)

    demo = add_command(
        sub,
        "demo",
        help="the main job on bundled defaults: release, grade a demo class through both doors, export everything",
        example="course demo --workers 2 --skip-release",
    )
    demo.add_argument("--workers", type=arguments.count, default=None, help="parallel workers (default: CPU cores)")
    demo.add_argument("--buggy", type=arguments.count_or_zero, default=3, help="buggy students per assignment")
    demo.add_argument("--skip-release", action="store_true", help="use the committed release/ as is")
    demo.set_defaults(func=cmd_demo)

    hub = add_command(
        sub,
        "stand-in-hub",
        help="write tiny models and small datasets under the notebooks' hub ids "
        "into a local Hugging Face cache (for offline rehearsals)",
        example="course stand-in-hub build/hub",
    )
    arguments.output_folder(hub, "directory", help="the cache folder to write (made if missing)", run=False)
    hub.set_defaults(func=cmd_stand_in_hub)
