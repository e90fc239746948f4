"""Exporters that read the results model (placeholder; being written)."""


def add_commands(sub) -> None:
    """Register `course export` (argparse subparsers)."""
