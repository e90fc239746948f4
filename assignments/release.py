"""Release pipeline (placeholder; being written)."""


def add_commands(sub) -> None:
    """Register `course release`, `course catalog` and `course lms` (argparse subparsers)."""
