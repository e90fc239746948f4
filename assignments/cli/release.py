"""``course release``: release/, solutions/ and dist/lms/ regenerated from source/, or with ``--check`` the
drift of what is committed (``assignments/release``)."""

from __future__ import annotations

from assignments import release
from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option


def cmd_release(args) -> int:
    course = course_of(args)
    if args.check:
        problems = release.check(
            course,
            args.assignment,
            validate=not args.no_validate,
            execute_solutions=not args.no_execute,
            jobs=args.jobs,
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
        check_remote=args.check_remote,
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


def register(sub) -> None:
    parser = add_command(
        sub,
        "release",
        help="regenerate release/, solutions/ and dist/lms/ from source/",
        description="Hygiene checks, nbgrader generate_assignment, validate (source: all tests "
        "pass; release: none pass), executed solutions, LMS bundles. Nothing in "
        "release/ or solutions/ changes unless every step succeeds.",
        example=["course release transformers", "course release --check"],
    )
    arguments.assignment(parser, several=True, default_help="every assignment with a source notebook", from_root=True)
    parser.add_argument("--no-validate", action="store_true", help="skip nbgrader validate (quick checks only)")
    parser.add_argument(
        "--no-execute", action="store_true", help="write solutions without executing them (quick checks only)"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="regenerate into a scratch folder and report drift from release/ and solutions/; changes nothing",
    )
    parser.add_argument("--jobs", type=arguments.count, help="parallel notebook runs (default: CPU count, at most 8)")
    parser.add_argument("--no-lms", action="store_true", help="do not rebuild dist/lms/<assignment>.zip")
    parser.add_argument("--keep-stage", action="store_true", help="keep the staging folder under build/")
    parser.add_argument(
        "--check-remote",
        action="store_true",
        help="also list the GitHub repository [tool.course] colab_url opens and refuse one holding solutions/ "
        "or autograder/ (needs the network)",
    )
    parser.set_defaults(func=cmd_release)
    root_option(parser)
