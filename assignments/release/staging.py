"""Staging: a private nbgrader course folder per assignment inside the run's scratch area (the
repository's gradebook is never touched), and ``nbgrader generate_assignment`` there."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import nbformat

from assignments import notebooks
from assignments.course import Course
from assignments.release import lms
from assignments.release.errors import StepFailed
from assignments.release.tools import nbgrader_command, run_tool, tool_env

IGNORED = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "*.pyc", ".DS_Store")


def source_path(course: Course, assignment: str) -> Path:
    return course.assignment(assignment).source_path


@dataclass
class Stage:
    """One assignment's private nbgrader course folder inside the run's staging area."""

    course: Course
    assignment: str
    notebook: str  # file name, e.g. transformers.ipynb
    root: Path  # nbgrader course root for this assignment
    scratch: Path  # copies that nbgrader validate / execution may write into
    source_changed: bool = False
    threads: int | None = None  # OMP/MKL threads for notebook kernels when several run at once

    @property
    def source_nb_path(self) -> Path:
        return self.root / "source" / self.assignment / self.notebook

    @property
    def release_folder(self) -> Path:
        return self.root / "release" / self.assignment

    @property
    def solutions_folder(self) -> Path:
        return self.root / "solutions" / self.assignment


def prepare(course: Course, assignment: str, area: Path) -> Stage:
    """Copy the source folder and nbgrader config into a private course root; set the Colab link."""
    path = source_path(course, assignment)
    stage = Stage(course, assignment, path.name, area / assignment / "course", area / assignment / "scratch")
    stage.scratch.mkdir(parents=True)
    shutil.copytree(path.parent, stage.root / "source" / assignment, ignore=IGNORED)
    config = course.root / "nbgrader_config.py"
    if not config.exists():
        raise StepFailed(f"{course.display(config)} is missing (nbgrader needs the course configuration)")
    shutil.copy2(config, stage.root / "nbgrader_config.py")
    nb = notebooks.read(path)
    stage.source_changed = lms.set_colab_link(nb, assignment, path.name, course.root)
    with open(stage.source_nb_path, "w", encoding="utf-8") as handle:
        nbformat.write(nb, handle)
    return stage


def generate(stage: Stage) -> None:
    """Real ``nbgrader generate_assignment`` in the stage's course root."""
    run_tool(
        nbgrader_command("generate_assignment", stage.assignment, "--force", "--no-db"),
        stage.root,
        tool_env(),
        f"{stage.assignment}: nbgrader generate_assignment",
    )
    made = stage.release_folder / stage.notebook
    if not made.exists():
        raise StepFailed(f"{stage.assignment}: nbgrader generate_assignment wrote no {made.name}")
