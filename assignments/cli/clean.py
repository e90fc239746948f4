"""``course clean``: what can be made again removed (the demo's runs, release staging, bundles) and, only
when named, one term's runs."""

from __future__ import annotations

import shutil

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option


def cmd_clean(args) -> int:
    """Remove what can be made again (the demo's runs, release staging, bundles) and, only when named,
    one term's runs: those hold hand grades that exist nowhere else."""
    course = course_of(args)
    targets = [course.demo_dir, course.build_dir, course.dist_dir]
    if args.term:  # a term folder of grades/ (arguments.term checked it)
        targets.append(course.root / "grades" / args.term)
    for target in targets:
        if target.exists():
            shutil.rmtree(target)
            print(f"removed {course.display(target)}")
    return 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "clean",
        help="remove the demo's runs, release staging and bundles; with --term, "
        "also that term's grades (hand grades included)",
        example="course clean --term 2025-spring",
    )
    arguments.term(parser)
    parser.set_defaults(func=cmd_clean)
    root_option(parser)
