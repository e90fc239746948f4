"""``course demo``: the main job end to end on bundled defaults (``demo/``)."""

from __future__ import annotations

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.demo import BUGGY


def cmd_demo(args) -> int:
    # Lazy: the demo builds its class from the reference solutions, which imports torch; `course --help` must not.
    from assignments.demo.run import demo

    return demo(workers=args.workers, skip_release=args.skip_release, buggy=args.buggy)


def register(sub) -> None:
    parser = add_command(
        sub,
        "demo",
        help="the main job on bundled defaults: release, grade a demo class through both doors, export everything",
        example="course demo --workers 2 --skip-release",
    )
    parser.add_argument("--workers", type=arguments.count, default=None, help="parallel workers (default: CPU cores)")
    parser.add_argument(
        "--buggy", type=arguments.count_or_zero, default=BUGGY, help=f"buggy students per assignment (default: {BUGGY})"
    )
    parser.add_argument("--skip-release", action="store_true", help="use the committed release/ as is")
    parser.set_defaults(func=cmd_demo)
