"""The release run: which assignments, hygiene first, staging and generation, leak scan, validation and
solutions in parallel, then the commit into release/ and solutions/ (all or nothing), the source's Colab
link and the LMS bundles."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import nbformat

from assignments import notebooks
from assignments.course import Course
from assignments.points import split_problems
from assignments.release import claims, colab_target, hygiene, lms
from assignments.release.drift import drift
from assignments.release.errors import Outcome, StepFailed
from assignments.release.leaks import check_release
from assignments.release.solutions import build_solutions
from assignments.release.staging import Stage, generate, prepare, source_path
from assignments.release.validation import validate_release, validate_source


def available(course: Course) -> tuple[list[str], list[str]]:
    """(assignments with a source notebook in course order, catalog assignments without one yet)."""
    names, missing = [], []
    for name in course.names():
        folder = course.source_dir / name
        (names if folder.is_dir() and any(folder.glob("*.ipynb")) else missing).append(name)
    return names, missing


# --- hygiene ---------------------------------------------------------------------------------------------


def label_problems(course: Course, name: str, path: Path) -> list[str]:
    """A title that numbers its assignment ("# Assignment 3: ...") gives the assignment's place in the catalog,
    which is the teaching order; a title without a number is left alone."""
    match = re.match(r"#\s+Assignment\s+(\d+)\b", notebooks.read(path).cells[0].source)
    if not match or name not in course.order or int(match.group(1)) == course.order.index(name) + 1:
        return []
    return [
        f"{course.display(path)}: cell 0 (colab_badge): the title says Assignment {match.group(1)}, but "
        f"{name} is number {course.order.index(name) + 1} of the catalog (assignments/course.py)"
    ]


def colab_link_problems(course: Course, *, placeholder_ok: bool = False, check_remote: bool = False) -> list[str]:
    """Why the configured Colab link cannot go into a release (``lms.colab_problems``); with ``check_remote``
    the repository it opens is listed too (``colab_target.check_remote``: no solutions/ or autograder/)."""
    problems = lms.colab_problems(course.root, placeholder_ok=placeholder_ok)
    if check_remote and not problems:
        problems += colab_target.check_remote(lms.colab_pattern(course.root))
    return problems


def hygiene_problems(course: Course, assignments: list[str]) -> list[str]:
    """The source notebooks' checks (the Colab link is checked by the release itself: ``colab_link_problems``)."""
    problems = []
    for name in assignments:
        folder = course.source_dir / name
        found = sorted(folder.glob("*.ipynb")) if folder.is_dir() else []
        if len(found) != 1:
            problems.append(
                f"{course.display(folder)}: expected exactly one notebook, found "
                f"{len(found)}" + (f" ({', '.join(p.name for p in found)})" if found else "")
            )
            continue
        path = found[0]
        if path.stem != name:
            problems.append(
                f"{course.display(path)}: notebook: the notebook must be named {name}.ipynb "
                "(the Colab link and the LMS bundle use that name)"
            )
        found = [str(p) for p in hygiene.check_notebook(path, course.display(path))]
        problems += found
        # Claims without a source (claims.py); a notebook that does not parse is reported above already.
        if not found:
            problems += label_problems(course, name, path) + claims.enforced_problems(course, [name])
        # The points the hidden tests give each question, against the cell's (points.py).
        try:
            problems += split_problems(course.assignment(name))
        except (OSError, ValueError) as error:  # an unreadable notebook is already reported above
            problems.append(f"{name}: points not checked: {error}")
    return problems


def source_problems(course: Course, assignments: list[str]) -> list[str]:
    """What ``course hygiene`` reports: the Colab link (when there is an assignment to release) and the source
    notebooks' checks, as the release checks them before anything runs."""
    return (colab_link_problems(course) if assignments else []) + hygiene_problems(course, assignments)


def commit(course: Course, stages: list[Stage], area: Path) -> None:
    """Replace release/<a> and solutions/<a> with the staged folders; on any error put everything back."""
    backups = area / "previous"
    done = []  # (target, backup or None)
    try:
        for stage in stages:
            for staged, target_root in (
                (stage.release_folder, course.release_dir),
                (stage.solutions_folder, course.solutions_dir),
            ):
                target = target_root / stage.assignment
                target_root.mkdir(parents=True, exist_ok=True)
                backup = None
                if target.exists():
                    backup = backups / target_root.name / stage.assignment
                    backup.parent.mkdir(parents=True, exist_ok=True)
                    shutil.move(str(target), str(backup))
                done.append((target, backup))
                shutil.move(str(staged), str(target))
    except BaseException:
        for target, backup in reversed(done):
            if target.exists():
                shutil.rmtree(target)
            if backup is not None:
                shutil.move(str(backup), str(target))
        raise


def sync_source(stage: Stage) -> Path | None:
    """Point the source's Colab cell at the configured URL if it was out of date (the only write to
    source/). The file is read again, so edits made while the release ran are kept."""
    if not stage.source_changed:
        return None
    target = source_path(stage.course, stage.assignment)
    nb = notebooks.read(target)
    if not lms.set_colab_link(nb, stage.assignment, target.name, stage.course.root):
        return None
    with open(target, "w", encoding="utf-8") as handle:
        nbformat.write(nb, handle)
    return target


def _assignment_steps(stage: Stage, validate: bool, run: bool) -> list:
    steps = [lambda: build_solutions(stage, run)]
    if validate:
        steps += [lambda: validate_source(stage), lambda: validate_release(stage)]
    return steps


def _parallel(tasks: list, jobs: int) -> list[str]:
    """Run callables (each may raise StepFailed); return the failure messages in task order."""

    def attempt(task):
        try:
            task()
            return None
        except StepFailed as error:
            return str(error)
        except Exception as error:  # a bug or an unexpected tool failure: report, do not commit
            return f"unexpected error: {type(error).__name__}: {error}"

    if jobs <= 1 or len(tasks) <= 1:
        results = [attempt(task) for task in tasks]
    else:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(attempt, tasks))
    return [r for r in results if r]


def release(
    assignments: list[str] | None = None,
    course: Course | None = None,
    *,
    validate: bool = True,
    execute_solutions: bool = True,
    jobs: int | None = None,
    sync: bool = True,
    bundles: bool = True,
    commit_output: bool = True,
    keep_stage: bool = False,
    stage_into: Path | None = None,
    log=print,
    demo: bool = False,
    check_remote: bool = False,
) -> Outcome:
    """Run the pipeline; see the module docstring. ``commit_output=False`` stops after staging (the staged
    release/ and solutions/ folders stay in ``stage_into``, which must then be given). The Colab link must
    be one students may have (``colab_link_problems``); the shipped placeholder passes only for ``demo`` (the
    demo's release) and a release that commits nothing; ``check_remote`` also lists the repository it opens."""
    course = course or Course()
    outcome = Outcome()
    present, missing = available(course)
    if assignments:
        unknown = [a for a in assignments if a not in present]
        for name in unknown:
            outcome.problems.append(f"{name}: no source notebook in {course.display(course.source_dir / name)}")
        names = [a for a in assignments if a in present]
    else:
        names = present
        outcome.skipped = [m for m in missing]
        for name in missing:
            log(f"{name}: skipped (no source notebook yet)")
    if names:
        outcome.problems += colab_link_problems(
            course, placeholder_ok=demo or not commit_output, check_remote=check_remote
        )
    outcome.problems += hygiene_problems(course, names)
    for note in claims.pending_notes(course, names) if not outcome.problems else []:
        log(note)
    if outcome.problems or not names:
        if not names and not outcome.problems:
            log("nothing to release")
        return outcome

    if stage_into is not None:
        area = Path(stage_into)
        area.mkdir(parents=True, exist_ok=True)
    else:
        course.build_dir.mkdir(parents=True, exist_ok=True)
        area = Path(tempfile.mkdtemp(prefix="release-", dir=course.build_dir))
    jobs = jobs or min(os.cpu_count() or 1, 8)
    threads = max(1, (os.cpu_count() or 1) // jobs) if jobs > 1 else None
    try:
        stages = []
        for name in names:
            try:
                stages.append(replace(prepare(course, name, area), threads=threads))
            except (StepFailed, OSError, ValueError) as error:
                outcome.problems.append(
                    f"{name}: staging failed: {error}" if not isinstance(error, StepFailed) else str(error)
                )
        if outcome.problems:
            return outcome
        log(f"generating {', '.join(names)} with nbgrader generate_assignment")
        outcome.problems += _parallel([lambda s=s: generate(s) for s in stages], jobs)
        if not outcome.problems:
            outcome.problems += _parallel([lambda s=s: check_release(s) for s in stages], 1)
        if outcome.problems:
            return outcome
        what = (["validating (source: all pass; release: none pass)"] if validate else []) + (
            ["executing solutions"] if execute_solutions else ["writing solutions (not executed)"]
        )
        log(f"{' and '.join(what)} with {jobs} job(s)")
        outcome.problems += _parallel(
            [step for s in stages for step in _assignment_steps(s, validate, execute_solutions)], jobs
        )
        if outcome.problems or not commit_output:
            return outcome
        commit(course, stages, area)
        outcome.released = names
        for stage in stages:
            log(
                f"{stage.assignment}: wrote {course.display(course.release_dir / stage.assignment)} and "
                f"{course.display(course.solutions_dir / stage.assignment)}"
            )
            if sync:
                path = sync_source(stage)
                if path:
                    outcome.synced_sources.append(path)
                    log(f"{stage.assignment}: updated the Colab link in {course.display(path)}")
        if bundles:
            for name in names:
                try:
                    path = lms.build_bundle(course.assignment(name))
                except (OSError, ValueError) as error:
                    outcome.after_commit.append(f"{name}: the LMS bundle was not built: {error}")
                    continue
                outcome.bundles.append(path)
                log(f"{name}: LMS bundle {course.display(path)}")
        return outcome
    finally:
        if stage_into is None and not keep_stage:
            shutil.rmtree(area, ignore_errors=True)
        elif keep_stage:
            log(f"staging folder kept: {area}")


def check(
    course: Course, assignments: list[str] | None, *, validate: bool, execute_solutions: bool, jobs: int | None
) -> list[str]:
    """``course release --check``: the release regenerated into a scratch folder under build/ and compared
    with the committed release/ and solutions/. The release's problems, else the drift; none: they match.
    Changes nothing outside the scratch folder, which goes at the end."""
    course.build_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="release-check-", dir=course.build_dir) as area:
        outcome = release(
            assignments or None,
            course,
            validate=validate,
            execute_solutions=execute_solutions,
            jobs=jobs,
            commit_output=False,
            stage_into=Path(area),
            sync=False,
            bundles=False,
        )
        return outcome.problems or drift(course, Path(area), assignments or available(course)[0])
