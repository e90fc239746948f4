"""``course prairielearn``: the grader image's entry point for one PrairieLearn external-grading job
(``platforms/prairielearn``)."""

from __future__ import annotations

import sys

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.platforms.prairielearn import quota, runner
from assignments.platforms.prairielearn.question import job_timeout


def cmd_prairielearn(args) -> int:
    """PrairieLearn's external-grading entry point: the job in /grade, results in /grade/results/results.json.
    With --print-timeout: the job timeout the question's info.json needs, derived from the grader's limits."""
    if args.print_timeout:
        print(job_timeout())
        return 0
    if not args.assignment:
        print(
            "course prairielearn: name the assignment to grade (e.g. `course prairielearn transformers`)",
            file=sys.stderr,
        )
        return 2
    if args.quota:
        why = quota.unavailable()
        if why:
            print(f"course prairielearn --quota: {why} (Linux, as root)", file=sys.stderr)
            return 2
        return quota.grade_under_quota(args.assignment, args.job)
    return runner.main(args.assignment, args.job)  # non-zero where the grader failed: PrairieLearn fails the job


def register(sub) -> None:
    parser = add_command(
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
        parser, also=arguments.job_assignments, optional=True, default_help="needed unless --print-timeout"
    )
    arguments.job_folder(parser)
    parser.add_argument(
        "--print-timeout",
        action="store_true",
        help="print the job timeout in seconds that a question's info.json needs (the grader's wall-clock "
        "ceiling plus its own work at PrairieLearn's 0.9 CPU) and exit",
    )
    parser.add_argument(
        "--quota",
        action="store_true",
        help="try the job as PrairieLearn's grading host runs it, under its 0.9 CPU and 2 GiB, and say how long it "
        "took against the question's timeout (Linux, as root)",
    )
    parser.set_defaults(func=cmd_prairielearn)
