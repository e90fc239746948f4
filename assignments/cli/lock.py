"""``course lock``: the package locks, one per supported Python, and a check of this environment against its
own (``assignments/locks.py``)."""

from __future__ import annotations

from assignments import locks as lockfile
from assignments.cli import arguments
from assignments.cli.help import add_command


def cmd_lock(args) -> int:
    if args.docs:
        _wrote(*lockfile.write_docs())
        return 0
    if args.check:
        problems = lockfile.drift()
        for line in problems:
            print(line)
        where = lockfile.lock_path().relative_to(lockfile.REPO)
        print(f"{len(problems)} packages differ from {where}" if problems else f"this environment is exactly {where}")
        return 1 if problems else 0
    for path, moved in lockfile.write(pythons=args.python or None):
        _wrote(path, moved)
    return 0


def _wrote(path, moved: list[str]) -> None:
    print(f"wrote {path.relative_to(lockfile.REPO)}: {len(lockfile.read(path))} packages, {len(moved)} moved")
    for line in moved:
        print(f"  {line}")


def register(sub) -> None:
    parser = add_command(
        sub,
        "lock",
        help="resolve the newest releases the requirements allow into locks/python3.X.txt, one per supported "
        "Python (make venv and the Gradescope zip install exactly these); --check compares this environment",
        example=["course lock --python 3.12", "course lock --check"],
    )
    arguments.pythons(parser)
    parser.add_argument(
        "--check", action="store_true", help="list what this environment has that its Python's lock does not say"
    )
    parser.add_argument(
        "--docs",
        action="store_true",
        help="only locks/docs.txt: the documentation tools (make docs), resolved against the Pythons' locks as they are",
    )
    parser.set_defaults(func=cmd_lock)
