"""What a grader is made of: the files grading an assignment reads, by the name each has in a bundle.

The Gradescope bundle and the grader image ship exactly these (``platforms/``), and a run's
``grader_version`` hashes them (``runs/regrade.py``), so what is shipped and what a regrade compares are
one list.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from assignments.course import Assignment

PACKAGE_DIR = Path(__file__).resolve().parent  # the whole assignments package
SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", "mutants", "shortcuts", ".DS_Store"}


def _files_under(folder: Path, base: Path, skip_suffixes=(".pyc",)) -> list[tuple[str, Path]]:
    found = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if not path.is_file() or path.is_symlink() or any(part in SKIP_PARTS for part in relative.parts):
            continue
        if path.suffix in skip_suffixes or path.name.endswith(".tmp"):
            continue
        found.append((PurePosixPath(path.relative_to(base).as_posix()).as_posix(), path))
    return found


def autograder_files(hw: Assignment, package_dir: Path = PACKAGE_DIR) -> dict[str, Path]:
    """Archive name -> file on disk for everything grading the assignment ``hw`` needs (of its course)."""
    repo = hw.course.root
    files: dict[str, Path] = {}
    for name, path in _files_under(package_dir, package_dir.parent):
        files[name] = path
    if not hw.suite_dir.is_dir():
        raise FileNotFoundError(f"no hidden tests at {hw.suite_dir}")
    for path in sorted(hw.suite_dir.parent.glob("*.py")):  # the autograder package's own modules
        files[f"autograder/{path.name}"] = path
    files.update(dict(_files_under(hw.suite_dir, repo)))
    if not any(hw.release_folder.glob("*.ipynb")):
        raise FileNotFoundError(f"no release notebook in {hw.release_folder} (run `course release` first)")
    files.update(dict(_files_under(hw.release_folder, repo)))
    for name in ("pyproject.toml", "nbgrader_config.py"):
        if (repo / name).is_file():
            files[name] = repo / name
    if "pyproject.toml" not in files:
        raise FileNotFoundError(f"no pyproject.toml in {repo}")
    return files
