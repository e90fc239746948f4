"""``nbgrader validate`` on the staged source (every test passes) and ``--invert`` on the staged release
(no test passes), failures named by cell."""

from __future__ import annotations

import re
import shutil
import textwrap

from assignments import notebooks
from assignments.grading.doors.nbgrader.hidden_region import COURSE_VARIABLE
from assignments.release.errors import StepFailed
from assignments.release.staging import Stage
from assignments.release.tools import nbgrader_command, run_tool, tail, tool_env


def _reported_cells(output: str, nb) -> list[tuple[str, str]]:
    """(grade_id, error) for each cell ``nbgrader validate`` printed as failed (or passed, with --invert),
    matched to the notebook by the cell's first line (nbgrader prints sources truncated)."""
    blocks = re.findall(
        r"The following cell (?:failed|passed):\n\n(.*?)\n\n(?:The error was:\n\n(.*?)\n\n)?"
        r"(?====|\Z)",
        output + "\n\n",
        re.DOTALL,
    )
    found = []
    for source, error in blocks:
        first = textwrap.dedent(source).split("\n")[0].strip()
        first = first[:-3] if first.endswith("...") else first
        match = [
            notebooks.grade_id(c)
            for c in nb.cells
            if c.source.strip() and c.source.strip().split("\n")[0].strip().startswith(first)
        ]
        name = match[0] if len(match) == 1 and match[0] else f"cell starting {first[:50]!r}"
        error_lines = [line.strip() for line in error.strip().split("\n") if line.strip()]
        found.append((name, " | ".join(error_lines[-3:])))
    return found


def _validation_failure(headline: str, output: str, nb) -> StepFailed:
    cells = _reported_cells(output, nb)
    if not cells:
        return StepFailed(f"{headline}:\n{tail(output, 60)}")
    names = ", ".join(name for name, _ in cells)
    details = "\n".join(f"    {name}: {error}" if error else f"    {name}" for name, error in cells)
    return StepFailed(f"{headline} ({names}):\n{details}")


def _course_env(stage: Stage) -> dict:
    """The tools' environment, naming the course folder whose assignment the hidden-test regions resolve
    (a ``--root`` course's, not this checkout's)."""
    return tool_env({COURSE_VARIABLE: str(stage.course.root)}, threads=stage.threads)


def validate_source(stage: Stage) -> None:
    """``nbgrader validate`` on a copy of the staged source: every test must pass."""
    folder = stage.scratch / "validate-source"
    shutil.copytree(stage.source_nb_path.parent, folder)
    output = run_tool(
        nbgrader_command("validate", str(folder / stage.notebook)),
        stage.root,
        _course_env(stage),
        f"{stage.assignment}: nbgrader validate (source)",
    )
    if "Success! Your notebook passes all the tests." not in output:
        raise _validation_failure(
            f"{stage.assignment}: nbgrader validate on the source failed", output, notebooks.read(stage.source_nb_path)
        )


def validate_release(stage: Stage) -> None:
    """``nbgrader validate --invert`` on a copy of the staged release: no test may pass."""
    folder = stage.scratch / "validate-release"
    shutil.copytree(stage.release_folder, folder)
    output = run_tool(
        nbgrader_command("validate", "--invert", str(folder / stage.notebook)),
        stage.root,
        _course_env(stage),
        f"{stage.assignment}: nbgrader validate --invert (release)",
    )
    if "Success! The notebook does not pass any tests." not in output:
        raise _validation_failure(
            f"{stage.assignment}: the blank release passes tests it should fail",
            output,
            notebooks.read(stage.release_folder / stage.notebook),
        )
