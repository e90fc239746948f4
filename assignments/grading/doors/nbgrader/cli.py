"""The one way this package starts nbgrader (and the Jupyter server formgrader runs in): this
interpreter's own ``python -m nbgrader``, with this interpreter's scripts folder first on PATH, because
nbgrader shells out to ``alembic`` and kernels start ``python`` from PATH. The nbgrader door also needs
the course package importable in the kernels it starts (its hidden-test regions import it); the release
must not have it (a solution that imports the package by mistake has to fail there, as on Colab).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from assignments.course import REPO


def environment(extra: dict | None = None, *, package_on_path: bool | None = None) -> dict:
    """This process's environment with PATH fixed, plus ``extra``. ``package_on_path``: True puts the
    course package first on PYTHONPATH, False removes PYTHONPATH, None leaves it as it is."""
    env = dict(os.environ)
    scripts = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join([scripts] + [p for p in env.get("PATH", "").split(os.pathsep) if p])
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if package_on_path:
        env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + paths)
    elif package_on_path is False:
        env.pop("PYTHONPATH", None)
    env.update(extra or {})
    return env


def command(*args: str) -> list[str]:
    """``python -m nbgrader <args>`` for this interpreter."""
    return [sys.executable, "-m", "nbgrader", *args]
