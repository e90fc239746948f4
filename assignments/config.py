"""The course configuration: ``[tool.course]`` in the course root's ``pyproject.toml``.

One reader for every setting an instructor chooses once per course or term (the Canvas assignments the
grades go to, how ungraded written answers count, the late policy, excused questions). Each consumer
asks ``settings(root)`` for its own key and checks its own values, next to where they are used.
"""

from __future__ import annotations

from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10 (Gradescope's Ubuntu 22.04): tomli, the same parser, is a dependency there
    import tomli as tomllib


def read_toml(path: Path) -> dict:
    """The whole of the TOML file at ``path`` (OSError, or ValueError for bad TOML). Every module that reads
    ``pyproject.toml`` reads it here, so the package imports on every supported Python."""
    with open(path, "rb") as handle:
        return tomllib.load(handle)


def settings(root: Path) -> dict:
    """``[tool.course]`` of ``root/pyproject.toml``; empty when the file or the table is missing or cannot
    be read (a process that has the repository hidden from it, like a student's kernel, gets defaults)."""
    try:
        return read_toml(Path(root) / "pyproject.toml").get("tool", {}).get("course", {})
    except OSError:
        return {}
