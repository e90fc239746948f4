"""``course selftest``: mutation-test the hidden suites (``grading/selftest``)."""

from __future__ import annotations

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.course import default


def cmd_selftest(args) -> int:
    # Lazy: the self-test grades the reference, which imports torch; `course --help` must not.
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


def register(sub) -> None:
    parser = add_command(
        sub,
        "selftest",
        help="mutation-test the hidden suites (reference, blank, mutants)",
        example="course selftest transformers --mutant block_pre_layernorm --verbose",
    )
    arguments.assignment(parser, several=True, default_help="every assignment")
    arguments.mutants(parser)
    parser.add_argument("--repeats", type=arguments.count, default=1, help="grade the reference with seeds 0..N-1")
    parser.add_argument("--skip-blank", action="store_true")
    parser.add_argument(
        "--skip-variants",
        action="store_true",
        help="do not grade the variants through the two real doors (the slow part)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="each mutant's failed tests, and a warning for a failed test that the behaviour "
        "map does not pair with that mutant (its message may point at another mistake)",
    )
    parser.set_defaults(func=cmd_selftest)
