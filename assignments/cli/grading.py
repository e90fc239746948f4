"""``course selftest``, ``grade``, ``merge``, ``prairielearn``, ``repair``, ``autograde``, ``demo`` and
``stand-in-hub``: the grading commands, each forwarding to its wing."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..course import default
from .options import layout_option


def cmd_selftest(args) -> int:
    from assignments.grading.selftest.report import selftest

    names = args.assignment or default().present()
    return selftest(names, args.repeats, args.skip_blank, args.skip_variants, args.mutant, args.verbose)


def cmd_grade(args) -> int:
    """Standalone door over one notebook, a folder or an LMS zip; results, exports and a table."""
    from ..batches import Shard
    from ..results import table
    from ..run_folder import Run
    from ..workflow import export_all, grade_class

    run = Run.at(args.out) if args.out else Run.of_term(args.assignment)
    try:
        shard = Shard.parse(args.shard) if args.shard else None
    except ValueError as error:
        print(f"course grade: {error}")
        return 2
    results = grade_class(
        args.assignment, Path(args.submissions), run, workers=args.workers, shard=shard, layout=args.layout
    )
    print(table.score_table(results, f"{args.assignment}: standalone grader" + (f", shard {shard}" if shard else "")))
    if shard is None:
        export_all(args.assignment, run)
        print(f"results: {run.results}\nexports: {run.exports}")
    else:
        print(
            f"results: {run.results} (one shard: `course merge {args.assignment} <every shard's run>` "
            "joins them and writes the exports)"
        )
    return 0


def cmd_merge(args) -> int:
    """The shards' runs joined into one run, exported as a whole-class run is."""
    from ..batches import MergeRefused
    from ..escaping import one_line
    from ..results import table
    from ..run_folder import Run
    from ..workflow import merge

    run = Run.at(args.out) if args.out else Run.of_term(args.assignment)
    try:
        results = merge(args.assignment, [Run.at(path) for path in args.runs], run, args.allow_missing)
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
        from ..prairielearn_question import job_timeout

        print(job_timeout())
        return 0
    if not args.assignment:
        print("course prairielearn: name the assignment to grade (e.g. `course prairielearn transformers`)")
        return 2
    from ..prairielearn_runner import main

    return main(args.assignment, args.job)  # non-zero where the grader failed: PrairieLearn fails the job


def cmd_autograde(args) -> int:
    from ..run_folder import Run
    from ..workflow import autograde_class

    run = Run.autograde(args.out) if args.out else Run.autograde_of_term(args.assignment)
    autograde_class(
        args.assignment,
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

    from ..run_folder import Run
    from ..workflow import collect

    out = Path(args.out or Run.of_term(args.assignment).repair_alone)
    jobs, _ = collect(args.assignment, Path(args.submissions), Run(out), args.layout)
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


def add_commands(sub) -> None:
    from assignments.grading.doors.nbgrader.door import NOTEBOOK_TIMEOUT_S

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
    layout_option(grade)
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
    merge.add_argument(
        "--allow-missing",
        action="store_true",
        help="merge although students the intake lists have no record in the runs (a warning names them; "
        "no export has a row for them); without it such a merge is refused and names the shards to grade again",
    )
    merge.set_defaults(func=cmd_merge)

    prairielearn = sub.add_parser(
        "prairielearn",
        help="grade one PrairieLearn external-grading job (the grader image's entry point for PrairieLearn)",
        description="Grade the notebook in a PrairieLearn job folder and write its results/results.json.",
        epilog="example: course prairielearn transformers --job /grade\n"
        "         course prairielearn --print-timeout   # the seconds for info.json's externalGradingOptions.timeout",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    prairielearn.add_argument("assignment", nargs="?")
    prairielearn.add_argument("--job", type=Path, default=Path("/grade"), help="the job folder (default: /grade)")
    prairielearn.add_argument(
        "--print-timeout",
        action="store_true",
        help="print the job timeout in seconds that a question's info.json needs (the grader's wall-clock "
        "ceiling plus its own work at PrairieLearn's 0.9 CPU) and exit",
    )
    prairielearn.set_defaults(func=cmd_prairielearn)

    repair = sub.add_parser(
        "repair",
        help="repair damaged notebooks (lost nbgrader metadata, another encoding) "
        "so that plain `nbgrader autograde` grades them",
    )
    repair.add_argument("assignment")
    repair.add_argument("submissions", help="an .ipynb, a folder of them, or an LMS bulk-download zip")
    repair.add_argument("--out", help="output folder (default: grades/<term>/<assignment>/repair)")
    layout_option(repair)
    repair.set_defaults(func=cmd_repair)

    autograde = sub.add_parser(
        "autograde",
        help="grade the same inputs through real `nbgrader autograde`, "
        "each notebook repaired first (as `course repair`)",
    )
    autograde.add_argument("assignment")
    autograde.add_argument("submissions", help="an .ipynb, a folder of them, or an LMS bulk-download zip")
    autograde.add_argument("--out", help="output folder (default: grades/<term>/<assignment>/nbgrader)")
    layout_option(autograde)
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
