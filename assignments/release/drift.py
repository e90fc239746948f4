"""Drift: what ``course release`` would generate from source, compared with what is committed."""

from __future__ import annotations

from pathlib import Path

import nbformat

from assignments import notebooks
from assignments.course import Course
from assignments.release.solutions import executed_with, execution_environment, without_execution_record


def without_outputs(text: str) -> str:
    nb = nbformat.reads(text, as_version=4)
    without_execution_record(nb)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return nbformat.writes(nb)


def compare(generated: Path, committed: Path, label: str, ignore_outputs: bool = False) -> list[str]:
    """Differences between a freshly generated folder and the committed one (empty: no drift)."""

    def files(folder):
        return (
            {
                p.relative_to(folder).as_posix(): p
                for p in Path(folder).rglob("*")
                if p.is_file() and ".ipynb_checkpoints" not in p.parts
            }
            if Path(folder).is_dir()
            else {}
        )

    new, old = files(generated), files(committed)
    problems = [f"{label}/{name}: missing from the committed folder" for name in sorted(set(new) - set(old))]
    problems += [f"{label}/{name}: committed but no longer generated" for name in sorted(set(old) - set(new))]
    for name in sorted(set(new) & set(old)):
        a, b = new[name].read_bytes(), old[name].read_bytes()
        if ignore_outputs and name.endswith(".ipynb"):
            try:
                a, b = without_outputs(a.decode()), without_outputs(b.decode())
            except Exception as error:
                problems.append(f"{label}/{name}: cannot be read as a notebook ({error})")
                continue
        if a != b:
            where = _differing_cells(a, b) if name.endswith(".ipynb") else ""
            problems.append(f"{label}/{name}: differs from what `course release` generates from source{where}")
    return problems


def _differing_cells(generated, committed) -> str:
    """' (cells 3 (grade_id), ...)' naming where two notebooks differ, or '' if that cannot be told."""
    try:
        new, old = (
            nbformat.reads(x.decode() if isinstance(x, bytes) else x, as_version=4) for x in (generated, committed)
        )
    except Exception:
        return ""
    if len(new.cells) != len(old.cells):
        return f" ({len(new.cells)} cells generated, {len(old.cells)} committed)"
    differ = [f"{i} ({notebooks.grade_id(c)})" for i, (c, d) in enumerate(zip(new.cells, old.cells)) if c != d]
    if not differ:
        return " (notebook metadata or formatting)"
    return f" (cell{'s' if len(differ) > 1 else ''} {', '.join(differ[:5])}{', ...' if len(differ) > 5 else ''})"


def drift(course: Course, area: Path, names: list[str]) -> list[str]:
    """Compare staged output in ``area`` (from ``release(..., commit_output=False, stage_into=area)``)."""
    problems = []
    for name in names:
        stage_root = Path(area) / name / "course"
        problems += compare(stage_root / "release" / name, course.release_dir / name, f"release/{name}")
        problems += compare(
            stage_root / "solutions" / name, course.solutions_dir / name, f"solutions/{name}", ignore_outputs=True
        )
    return problems


def staged_folders(area: Path, name: str) -> tuple[Path, Path]:
    """(release folder, solutions folder) of one assignment in a staging area."""
    root = Path(area) / name / "course"
    return root / "release" / name, root / "solutions" / name


def solution_notebooks(course: Course) -> dict[Path, bytes]:
    """The solution notebooks in ``course.solutions_dir`` with their bytes (for ``keep_other_environments_outputs``)."""
    return {path: path.read_bytes() for path in sorted(course.solutions_dir.glob("*/*.ipynb"))}


def keep_other_environments_outputs(before: dict[Path, bytes]) -> list[str]:
    """After a release, put back each solution notebook whose new version differs from ``before`` only in its
    outputs and whose outputs ``before`` were executed with other library versions (or Python, or machine
    architecture) than here: there, the same outputs cannot be expected. Returns a note per notebook put
    back. ``course demo`` uses it, so that its release leaves the committed solutions/ as they are on any
    machine; ``course release`` rewrites them."""
    here = execution_environment()
    notes = []
    for path, old in before.items():
        if not path.exists() or path.read_bytes() == old:
            continue
        try:
            then = executed_with(nbformat.reads(old.decode("utf-8"), as_version=4))
            same_source = without_outputs(old.decode("utf-8")) == without_outputs(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError, nbformat.reader.NotJSONError):
            continue
        if not isinstance(then, dict) or then == here or not same_source:
            continue
        path.write_bytes(old)
        differences = ", ".join(
            f"{key} {then.get(key)} there, {here.get(key)} here" for key in here if then.get(key) != here.get(key)
        )
        notes.append(
            f"{path.parent.name}/{path.name}: executed without errors; its committed outputs were kept "
            f"(executed with other versions: {differences}; `course release` rewrites them)"
        )
    return notes
