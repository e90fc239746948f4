"""``course release``, ``catalog``, ``lms``, ``hygiene`` and ``claims``: the release and its checks."""

from __future__ import annotations

import tempfile
from pathlib import Path

from assignments import release
from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option
from assignments.course import points_report
from assignments.release import lms


def cmd_release(args) -> int:
    course = course_of(args)
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


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def cmd_catalog(args) -> int:
    course = course_of(args)
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
    course = course_of(args)
    refused = release.colab_link_problems(course)
    if refused:  # a bundle's README hands students the Colab links
        for problem in refused:
            print(problem)
        return 2
    names = args.assignment or [n for n in course.names() if (course.release_dir / n).is_dir()]
    status = 0
    for name in names:
        try:
            path = lms.build_bundle(course.assignment(name))
            print(f"{name}: {course.display(path)}")
        except FileNotFoundError as error:
            print(f"{name}: {error}")
            status = 1
    if not names:
        print("no release folders yet; run `course release`")
        status = 1
    return status


def cmd_hygiene(args) -> int:
    course = course_of(args)
    names = args.assignment or release.available(course)[0]
    problems = (release.colab_link_problems(course) if names else []) + release.hygiene_problems(course, names)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s)" if problems else f"clean: {', '.join(names) or 'no source notebooks'}")
    return 1 if problems else 0


def cmd_claims(args) -> int:
    """Every claims problem of the named assignments, enforced or not (release/claims.py)."""
    course = course_of(args)
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


def add_commands(sub) -> None:
    cmd = add_command(
        sub,
        "release",
        help="regenerate release/, solutions/ and dist/lms/ from source/",
        description="Hygiene checks, nbgrader generate_assignment, validate (source: all tests "
        "pass; release: none pass), executed solutions, LMS bundles. Nothing in "
        "release/ or solutions/ changes unless every step succeeds.",
        example=["course release transformers", "course release --check"],
    )
    arguments.assignment(cmd, several=True, default_help="every assignment with a source notebook", from_root=True)
    cmd.add_argument("--no-validate", action="store_true", help="skip nbgrader validate (quick checks only)")
    cmd.add_argument(
        "--no-execute", action="store_true", help="write solutions without executing them (quick checks only)"
    )
    cmd.add_argument(
        "--check",
        action="store_true",
        help="regenerate into a scratch folder and report drift from release/ and solutions/; changes nothing",
    )
    cmd.add_argument("--jobs", type=arguments.count, help="parallel notebook runs (default: CPU count, at most 8)")
    cmd.add_argument("--no-lms", action="store_true", help="do not rebuild dist/lms/<assignment>.zip")
    cmd.add_argument("--keep-stage", action="store_true", help="keep the staging folder under build/")
    cmd.add_argument(
        "--check-remote",
        action="store_true",
        help="also list the GitHub repository [tool.course] colab_url opens and refuse one holding solutions/ "
        "or autograder/ (needs the network)",
    )
    cmd.set_defaults(func=cmd_release)
    root_option(cmd)

    cat = add_command(
        sub,
        "catalog",
        help="assignments, their questions (grade_id, kind, points) and totals",
        example="course catalog",
    )
    cat.set_defaults(func=cmd_catalog)
    root_option(cat)

    bundle = add_command(
        sub,
        "lms",
        help="rebuild dist/lms/<assignment>.zip from the committed release/",
        example="course lms transformers rnn_attention",
    )
    arguments.assignment(bundle, several=True, default_help="every released assignment", from_root=True)
    bundle.set_defaults(func=cmd_lms)
    root_option(bundle)

    check = add_command(
        sub,
        "hygiene",
        help="check source notebooks (what `course release` checks first)",
        example="course hygiene transfer_lm",
    )
    arguments.assignment(check, several=True, default_help="every assignment with a source notebook", from_root=True)
    check.set_defaults(func=cmd_hygiene)
    root_option(check)

    listing = add_command(
        sub,
        "claims",
        help="list claims without a source (figures, findings) in source notebooks and model answers",
        description="Each claim in prose, prompts, model answers and mark schemes carries a footnote [^key] "
        "defined as measured, derived, estimate or cited (source/README.md, Claims and their sources). "
        "`course release` and `course hygiene` refuse an assignment with problems, except those not enforced yet.",
        example="course claims rnn_attention",
    )
    arguments.assignment(listing, several=True, default_help="every assignment with a source notebook", from_root=True)
    listing.set_defaults(func=cmd_claims)
    root_option(listing)
