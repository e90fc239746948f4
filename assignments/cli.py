"""The instructor command line: ``course <command>`` (or ``python -m assignments <command>``)."""

from __future__ import annotations

import argparse
import sys

from . import notebooks


def cmd_selftest(args) -> int:
    """Grade the reference, the blank release and every mutant in-process; print what is wrong."""
    from .grading import selftest

    problems = []
    for assignment in args.assignment or notebooks.assignment_names():
        for seed in range(args.repeats):
            problems += selftest.check_reference(assignment, seed)
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="course", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    selftest = sub.add_parser("selftest", help="mutation-test the hidden suites (reference, blank, mutants)")
    selftest.add_argument("assignment", nargs="*", help="default: every assignment")
    selftest.add_argument("--mutant", action="append", help="only this mutant (repeatable)")
    selftest.add_argument("--repeats", type=int, default=1, help="grade the reference with seeds 0..N-1")
    selftest.add_argument("--skip-blank", action="store_true")
    selftest.set_defaults(func=cmd_selftest)

    from . import exports, release
    release.add_commands(sub)
    exports.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
