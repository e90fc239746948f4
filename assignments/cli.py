"""The instructor command line: ``course <command>`` (or ``python -m assignments <command>``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import notebooks


def cmd_selftest(args) -> int:
    """Grade the reference, the blank release and every mutant in-process; print what is wrong."""
    from .grading import selftest

    problems = []
    for assignment in args.assignment or notebooks.assignment_names():
        problems += selftest.check_reference(assignment, range(args.repeats))
        if not args.skip_blank:
            problems += selftest.check_blank(assignment)
        for mutant in selftest.mutants(assignment):
            if args.mutant and mutant.name not in args.mutant:
                continue
            found = selftest.check_mutant(assignment, mutant)
            print(f"{assignment}/{mutant.name}: {'PROBLEM' if found else 'caught'}", flush=True)
            problems += found
    for problem in problems:
        print(problem)
    print("self-test passed" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


def cmd_grade(args) -> int:
    """Standalone door over one notebook, a folder or an LMS zip; results, exports and a table."""
    from .grading import table
    from .paths import GRADES_DIR
    from .workflow import export_all, grade_class

    out = Path(args.out or GRADES_DIR / args.assignment)
    results = grade_class(args.assignment, Path(args.submissions), out, workers=args.workers)
    print(table.score_table(results, f"{args.assignment}: standalone grader"))
    export_all(args.assignment, out)
    print(f"results: {out / 'results'}\nexports: {out / 'exports'}")
    return 0


def cmd_autograde(args) -> int:
    """nbgrader door: each notebook repaired (`course repair`), real `nbgrader autograde` per student, read
    back from its gradebook, then (unless --no-cross-check) a second opinion from the standalone door on
    every question (of the notebooks as sent)."""
    from .grading import nbgrader_door, table
    from .paths import nbgrader_course, nbgrader_door_dir
    from .workflow import attach_intake, collect

    out = Path(args.out or nbgrader_door_dir(args.assignment))
    jobs, found = collect(args.assignment, Path(args.submissions), out)
    submissions = {job.student: Path(job.path) for job in jobs}
    course = nbgrader_course(out)
    results = nbgrader_door.autograde_repaired(args.assignment, submissions, out, root=course,
                                               timeout=args.timeout or nbgrader_door.NOTEBOOK_TIMEOUT_S)
    disagreements = [] if args.no_cross_check else nbgrader_door.cross_check(
        args.assignment, results, submissions, out / "standalone", workers=args.workers)
    results = attach_intake(results, found, out, door="nbgrader")
    print(table.score_table(results, f"{args.assignment}: nbgrader autograde"))
    if not args.no_cross_check:
        print("the standalone door agrees on every question" if not disagreements
              else "DOORS DISAGREE (the standalone door is the trusted one):\n  " + "\n  ".join(disagreements))
    print(f"results: {out / 'results'}\nnbgrader course folder: {course}")
    return 0


def cmd_repair(args) -> int:
    """Repaired copies for nbgrader (the release's metadata restored, UTF-8) and a report of what was done."""
    from .grading import repair
    from .paths import GRADES_DIR, repair_dir
    from .workflow import collect

    out = Path(args.out or repair_dir(GRADES_DIR / args.assignment))
    jobs, _ = collect(args.assignment, Path(args.submissions), out)
    repairs = repair.repair_class(args.assignment, {job.student: Path(job.path) for job in jobs}, out)
    print(repair.report_table(repairs, f"{args.assignment}: repaired for nbgrader (release cells found, per method)"))
    print(f"{repair.summary(repairs)}\nreport: {out / repair.REPORT}\nrepaired copies: {out / 'submitted'} "
          f"(nbgrader's layout: copy its folders into your course's submitted/, then "
          f"`nbgrader autograde {args.assignment}`)")
    return 0


def cmd_demo(args) -> int:
    from .workflow import demo

    return demo(workers=args.workers, skip_release=args.skip_release, buggy=args.buggy)


def cmd_stand_in_hub(args) -> int:
    from .standin_hub import main as write_hub

    return write_hub([str(args.directory)])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="course", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    selftest = sub.add_parser("selftest", help="mutation-test the hidden suites (reference, blank, mutants)")
    selftest.add_argument("assignment", nargs="*", help="default: every assignment")
    selftest.add_argument("--mutant", action="append", help="only this mutant (repeatable)")
    selftest.add_argument("--repeats", type=int, default=1, help="grade the reference with seeds 0..N-1")
    selftest.add_argument("--skip-blank", action="store_true")
    selftest.set_defaults(func=cmd_selftest)

    grade = sub.add_parser("grade", help="grade submissions with the standalone (sandboxed) grader")
    grade.add_argument("assignment")
    grade.add_argument("submissions", help="an .ipynb, a folder of them, or an LMS bulk-download zip")
    grade.add_argument("--workers", type=int, default=None, help="parallel workers (default: CPU cores)")
    grade.add_argument("--out", help="output folder (default: grades/<assignment>)")
    grade.set_defaults(func=cmd_grade)

    repair = sub.add_parser("repair", help="repair damaged notebooks (lost nbgrader metadata, another encoding) "
                                           "so that plain `nbgrader autograde` grades them")
    repair.add_argument("assignment")
    repair.add_argument("submissions", help="an .ipynb, a folder of them, or an LMS bulk-download zip")
    repair.add_argument("--out", help="output folder (default: grades/<assignment>/repair)")
    repair.set_defaults(func=cmd_repair)

    autograde = sub.add_parser("autograde", help="grade the same inputs through real `nbgrader autograde`, "
                                                 "each notebook repaired first (as `course repair`)")
    autograde.add_argument("assignment")
    autograde.add_argument("submissions", help="an .ipynb, a folder of them, or an LMS bulk-download zip")
    autograde.add_argument("--out", help="output folder (default: grades/<assignment>/nbgrader)")
    autograde.add_argument("--timeout", type=float, default=None,
                           help="seconds one student's nbgrader run may take (default: "
                                "nbgrader_door.NOTEBOOK_TIMEOUT_S)")
    autograde.add_argument("--workers", type=int, default=None,
                           help="parallel workers of the standalone second opinion (default: CPU cores)")
    autograde.add_argument("--no-cross-check", action="store_true",
                           help="skip the standalone door's second opinion (faster; no disagreement check)")
    autograde.set_defaults(func=cmd_autograde)

    demo = sub.add_parser("demo", help="the main job on bundled defaults: release, grade a demo class "
                                       "through both doors, export everything")
    demo.add_argument("--workers", type=int, default=None)
    demo.add_argument("--buggy", type=int, default=3, help="buggy students per assignment")
    demo.add_argument("--skip-release", action="store_true", help="use the committed release/ as is")
    demo.set_defaults(func=cmd_demo)

    hub = sub.add_parser("stand-in-hub", help="write tiny models and small datasets under the notebooks' hub ids "
                                              "into a local Hugging Face cache (for offline rehearsals)")
    hub.add_argument("directory")
    hub.set_defaults(func=cmd_stand_in_hub)

    from . import exports, formgrader, release, similarity_report
    release.add_commands(sub)
    exports.add_commands(sub)
    formgrader.add_command(sub)
    similarity_report.add_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
