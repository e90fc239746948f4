"""Lint reaches every package file (issue #36 item 4): the folders it skips are the generated notebooks at
the project's root, never a package folder that happens to share their name (``assignments/release/``,
``tests/release/``)."""

import subprocess
import sys
from pathlib import Path

from assignments.course import REPO

RUFF = Path(sys.executable).with_name("ruff")  # `make lint` installs the pinned ruff into the venv


def test_ruff_lints_the_package_folders_named_like_generated_ones():
    assert RUFF.exists(), f"ruff is not in the venv ({RUFF}): run `make lint` once"
    listed = subprocess.run(
        [str(RUFF), "check", "--show-files", "."], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    files = {Path(line.strip()).resolve() for line in listed.splitlines() if line.strip().endswith((".py", ".ipynb"))}
    for folder in ("assignments/release", "tests/release"):
        expected = {path.resolve() for path in (REPO / folder).glob("*.py")}
        assert expected and expected <= files, f"ruff skips files of {folder}/: {sorted(expected - files)}"
    generated = [
        path for path in files if path.is_relative_to(REPO / "release") or path.is_relative_to(REPO / "source")
    ]
    assert not generated, f"the generated notebooks' folders should stay excluded: {generated[:3]}"
