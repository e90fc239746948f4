"""Release pipeline: source/<a> -> release/<a> (students), solutions/<a> (staff), dist/lms/<a>.zip.

``course release [ASSIGNMENT...]`` (default: every assignment with a source notebook), per assignment:

1. hygiene checks on the source (``assignments/hygiene.py``); any problem stops the release before
   anything runs, each reported as ``<file>: cell <index> (<grade_id>): <problem>``;
2. stage a private nbgrader course folder (a copy of ``nbgrader_config.py`` and ``source/<a>/``, its
   first cell pointing at the Colab URL configured in ``pyproject.toml``) and run the real
   ``nbgrader generate_assignment --no-db`` there (the repository's gradebook is never touched);
3. scan the staged release for leaks (markers, hidden tests, mark schemes, solution lines, imports of
   the course's own packages) and check it is self-contained (Colab link, setup cell);
4. ``nbgrader validate`` on (a copy of) the source must pass every test, and
   ``nbgrader validate --invert`` on (a copy of) the release must pass none;
5. ``solutions/<a>/<a>.ipynb``: the source without its hidden-test regions, executed in grading mode
   (``NBGRADER_EXECUTION=autograde``, offline, without the course package on the path), plus
   ``solutions/<a>/model_answers.md`` (prompt, model answer and mark scheme of each written question).

Only when every step succeeded for every requested assignment are the staged folders moved into
``release/<a>`` and ``solutions/<a>`` (replacing them whole); a failure leaves them untouched. Then the
source's Colab cell is synced if it was out of date (the only write to ``source/``), and the LMS
bundles ``dist/lms/<a>.zip`` are rebuilt (``course lms`` rebuilds them alone from the committed
``release/``).

Output is deterministic: release notebooks are byte-identical across runs; solution notebooks differ only
in their outputs and execution counts. ``course release --check`` regenerates into a scratch folder
and reports any drift from what is committed, changing nothing (add ``--no-validate --no-execute`` for a
drift check in about a minute). ``--no-validate``/``--no-execute`` are for quick iterations only: commit
what a plain ``course release`` wrote. Other commands: ``course catalog`` (questions, points, totals
against ``assignments/catalog.py``), ``course lms`` (bundles only), ``course hygiene`` (step 1 only).
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import nbformat

from . import hygiene, lms, nbgrader_cli, notebooks
from .course import Course

SUBPROCESS_TIMEOUT = 1800        # seconds for one nbgrader / nbconvert run (cells have their own limits)
CELL_TIMEOUT = 300               # seconds per cell when executing solutions
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
               "TQDM_DISABLE": "1"}
IGNORED = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "*.pyc", ".DS_Store")

# Text that must never appear anywhere in release/ (besides every reference solution line).
FORBIDDEN = (
    ("BEGIN SOLUTION", "a solution marker"),
    ("END SOLUTION", "a solution marker"),
    ("BEGIN HIDDEN TESTS", "a hidden-test marker"),
    ("END HIDDEN TESTS", "a hidden-test marker"),
    ("BEGIN MARK SCHEME", "a mark-scheme marker"),
    ("END MARK SCHEME", "a mark-scheme marker"),
    ("hidden_tests(", "a hidden-test call"),
    ("assignments.grading", "the course's grading package"),
)
FORBIDDEN_PATTERNS = (  # matched per line of cell sources (notebooks) or of the file (other text files)
    (re.compile(r"^\s*(?:import|from)\s+autograder\b"), "an import of autograder"),
    (re.compile(r"^\s*(?:import|from)\s+assignments\b"), "an import of the course package"),
    (re.compile(r"\bautograder[./][A-Za-z_]"), "a path or module in autograder/"),
)


@dataclass
class Outcome:
    """What a release run did; ``ok`` only if everything was committed."""
    problems: list[str] = field(default_factory=list)
    released: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    bundles: list[Path] = field(default_factory=list)
    synced_sources: list[Path] = field(default_factory=list)
    after_commit: list[str] = field(default_factory=list)   # problems after release/ was written (bundles)

    @property
    def ok(self) -> bool:
        return not self.problems


class StepFailed(Exception):
    pass


# --- which assignments -----------------------------------------------------------------------------------

def available(course: Course) -> tuple[list[str], list[str]]:
    """(assignments with a source notebook in course order, catalog assignments without one yet)."""
    names, missing = [], []
    for name in course.names():
        folder = course.source_dir / name
        (names if folder.is_dir() and any(folder.glob("*.ipynb")) else missing).append(name)
    return names, missing


def source_path(course: Course, assignment: str) -> Path:
    return course.assignment(assignment).source_path


# --- hygiene ---------------------------------------------------------------------------------------------

def hygiene_problems(course: Course, assignments: list[str]) -> list[str]:
    problems = []
    for name in assignments:
        folder = course.source_dir / name
        found = sorted(folder.glob("*.ipynb")) if folder.is_dir() else []
        if len(found) != 1:
            problems.append(f"{course.display(folder)}: expected exactly one notebook, found "
                            f"{len(found)}" + (f" ({', '.join(p.name for p in found)})" if found else ""))
            continue
        path = found[0]
        if path.stem != name:
            problems.append(f"{course.display(path)}: notebook: the notebook must be named {name}.ipynb "
                            "(the Colab link and the LMS bundle use that name)")
        problems += [str(p) for p in hygiene.check_notebook(path, course.display(path))]
    return problems


# --- subprocesses ----------------------------------------------------------------------------------------

def _env(extra: dict | None = None, package_on_path: bool = True, threads: int | None = None) -> dict:
    """The environment of one nbgrader or nbconvert run: offline, no grading-mode flags inherited from the
    caller, ``threads`` OpenMP/MKL threads when several notebooks run at once."""
    env = nbgrader_cli.environment(package_on_path=package_on_path)
    env.pop("NBGRADER_EXECUTION", None)
    env.pop("NBGRADER_VALIDATING", None)
    for key, value in OFFLINE_ENV.items():
        env.setdefault(key, value)
    if threads:
        for key in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(key, str(threads))
    env.update(extra or {})
    return env


def _run(command: list[str], cwd: Path, env: dict, what: str) -> str:
    try:
        done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=SUBPROCESS_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise StepFailed(f"{what}: still running after {SUBPROCESS_TIMEOUT} s; stopped")
    if done.returncode != 0:
        raise StepFailed(f"{what} failed (exit {done.returncode}):\n{_tail(done.stdout)}")
    return done.stdout


def _tail(text: str, lines: int = 40) -> str:
    kept = text.rstrip().split("\n")[-lines:]
    return textwrap.indent("\n".join(kept), "    ")


def _nbgrader(*args: str) -> list[str]:
    quiet = ["--log-level=WARN"] if args[0] != "validate" else []   # validate has no --log-level
    return nbgrader_cli.command(*args, *quiet)


# --- staging ---------------------------------------------------------------------------------------------

@dataclass
class Stage:
    """One assignment's private nbgrader course folder inside the run's staging area."""
    course: Course
    assignment: str
    notebook: str              # file name, e.g. transformers.ipynb
    root: Path                 # nbgrader course root for this assignment
    scratch: Path              # copies that nbgrader validate / execution may write into
    source_changed: bool = False
    threads: int | None = None # OMP/MKL threads for notebook kernels when several run at once

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
    _run(_nbgrader("generate_assignment", stage.assignment, "--force", "--no-db"), stage.root, _env(),
         f"{stage.assignment}: nbgrader generate_assignment")
    made = stage.release_folder / stage.notebook
    if not made.exists():
        raise StepFailed(f"{stage.assignment}: nbgrader generate_assignment wrote no {made.name}")


# --- leaks and self-containment --------------------------------------------------------------------------

_STUB_LINES = {"# YOUR CODE HERE", "raise NotImplementedError()", "YOUR ANSWER HERE"}


SUBSTRING_MIN = 25  # secret lines at least this long are also looked for inside longer lines


def _secret_and_shipped(source_nb) -> tuple[set[str], str]:
    secret, shipped = set(), []
    for cell in source_nb.cells:
        text = cell.source
        meta = notebooks.nbgrader(cell)
        inside = []
        for begin, end in (notebooks.SOLUTION, notebooks.HIDDEN_TESTS, notebooks.MARK_SCHEME):
            region, text = notebooks.split_regions(text, begin, end)
            text = "\n".join(text)
            inside += region
        if meta.get("solution") and not notebooks.has_marker(cell.source, notebooks.SOLUTION):
            inside += text.split("\n")       # a whole-cell solution (written answer): all of it is secret
        else:
            shipped += [line.strip() for line in text.split("\n")]
        secret |= {line.strip() for line in inside}
    secret = {line for line in secret - set(shipped) - _STUB_LINES if len(line.replace(" ", "")) >= 4}
    return secret, "\n".join(shipped)


def secret_lines(source_nb) -> set[str]:
    """Stripped lines that exist in the source only inside solutions, hidden tests, mark schemes or model
    answers (a line that also appears in a shipped part of the source is not a secret)."""
    return _secret_and_shipped(source_nb)[0]


def _text_lines(path: Path, text: str) -> list[tuple[str, str]]:
    """(where, line) for every line a reader sees: cell sources for notebooks, the text otherwise."""
    if path.suffix != ".ipynb":
        return [("", line) for line in text.split("\n")]
    nb = nbformat.reads(text, as_version=4)
    return [(f"cell {index} ({notebooks.grade_id(cell)})", line)
            for index, cell in enumerate(nb.cells) for line in cell.source.split("\n")]


def leaks(folder: Path, source_nb, display: str | None = None) -> list[str]:
    """Everything in a release folder that students must not see (empty: nothing)."""
    secrets, shipped = _secret_and_shipped(source_nb)
    # long secret lines that the source never shows inside a longer shipped line (e.g. quoted in a hint)
    embedded = [line for line in secrets if len(line) >= SUBSTRING_MIN and line not in shipped]
    problems = []
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        name = f"{display or folder}/{path.relative_to(folder).as_posix()}"
        try:
            text = path.read_text(encoding="utf-8")
            lines = _text_lines(path, text)
        except (UnicodeDecodeError, nbformat.reader.NotJSONError, ValueError) as error:
            if path.suffix == ".ipynb":
                problems.append(f"{name}: cannot be read as a notebook ({error})")
            continue
        for needle, what in FORBIDDEN:
            if needle in text:
                problems.append(f"{name}: contains {what} ({needle!r})")
        reported = 0
        for where, line in lines:
            prefix = f"{name}: {where + ': ' if where else ''}"
            for pattern, what in FORBIDDEN_PATTERNS:
                match = pattern.search(line)
                if match:
                    problems.append(f"{prefix}contains {what} ({line.strip()[:80]!r})")
            stripped = line.strip()
            if reported >= 10 or not stripped:
                continue
            if stripped in secrets:
                reported += 1
                problems.append(f"{prefix}reference solution line {stripped[:80]!r}")
            else:
                inner = next((secret for secret in embedded if secret in stripped), None)
                if inner:
                    reported += 1
                    problems.append(f"{prefix}contains the reference solution line {inner[:80]!r}")
    return problems


def check_release(stage: Stage) -> None:
    source_nb = notebooks.read(stage.source_nb_path)
    display = f"release/{stage.assignment}"
    problems = leaks(stage.release_folder, source_nb, display)
    nb = notebooks.read(stage.release_folder / stage.notebook)
    problems += [f"{display}/{stage.notebook}: {p}" for p in
                 lms.self_contained_problems(nb, stage.assignment, stage.notebook, stage.course.root)]
    if problems:
        raise StepFailed("\n".join(problems))


# --- validation ------------------------------------------------------------------------------------------

def _reported_cells(output: str, nb) -> list[tuple[str, str]]:
    """(grade_id, error) for each cell ``nbgrader validate`` printed as failed (or passed, with --invert),
    matched to the notebook by the cell's first line (nbgrader prints sources truncated)."""
    blocks = re.findall(r"The following cell (?:failed|passed):\n\n(.*?)\n\n(?:The error was:\n\n(.*?)\n\n)?"
                        r"(?====|\Z)", output + "\n\n", re.DOTALL)
    found = []
    for source, error in blocks:
        first = textwrap.dedent(source).split("\n")[0].strip()
        first = first[:-3] if first.endswith("...") else first
        match = [notebooks.grade_id(c) for c in nb.cells
                 if c.source.strip() and c.source.strip().split("\n")[0].strip().startswith(first)]
        name = match[0] if len(match) == 1 and match[0] else f"cell starting {first[:50]!r}"
        error_lines = [line.strip() for line in error.strip().split("\n") if line.strip()]
        found.append((name, " | ".join(error_lines[-3:])))
    return found


def _validation_failure(headline: str, output: str, nb) -> StepFailed:
    cells = _reported_cells(output, nb)
    if not cells:
        return StepFailed(f"{headline}:\n{_tail(output, 60)}")
    names = ", ".join(name for name, _ in cells)
    details = "\n".join(f"    {name}: {error}" if error else f"    {name}" for name, error in cells)
    return StepFailed(f"{headline} ({names}):\n{details}")


def validate_source(stage: Stage) -> None:
    """``nbgrader validate`` on a copy of the staged source: every test must pass."""
    folder = stage.scratch / "validate-source"
    shutil.copytree(stage.source_nb_path.parent, folder)
    output = _run(_nbgrader("validate", str(folder / stage.notebook)), stage.root, _env(threads=stage.threads),
                  f"{stage.assignment}: nbgrader validate (source)")
    if "Success! Your notebook passes all the tests." not in output:
        raise _validation_failure(f"{stage.assignment}: nbgrader validate on the source failed", output,
                                  notebooks.read(stage.source_nb_path))


def validate_release(stage: Stage) -> None:
    """``nbgrader validate --invert`` on a copy of the staged release: no test may pass."""
    folder = stage.scratch / "validate-release"
    shutil.copytree(stage.release_folder, folder)
    output = _run(_nbgrader("validate", "--invert", str(folder / stage.notebook)), stage.root,
                  _env(threads=stage.threads), f"{stage.assignment}: nbgrader validate --invert (release)")
    if "Success! The notebook does not pass any tests." not in output:
        raise _validation_failure(f"{stage.assignment}: the blank release passes tests it should fail", output,
                                  notebooks.read(stage.release_folder / stage.notebook))


# --- solutions -------------------------------------------------------------------------------------------

def without_hidden_tests(source_nb):
    from nbgrader.preprocessors import ClearHiddenTests

    nb = copy.deepcopy(source_nb)
    nb, _ = ClearHiddenTests(enforce_metadata=False).preprocess(nb, {})
    return nb


def _normalized(nb, metadata) -> None:
    """Metadata that execution adds varies by machine; keep the source's."""
    nb.metadata = copy.deepcopy(metadata)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if not (o.get("output_type") == "display_data"
                                                           and "application/vnd.jupyter.widget-view+json" in o.get("data", {}))]


def execute(nb, workdir: Path, assignment: str, threads: int | None = None):
    """Run ``nb`` in a fresh kernel in grading mode (nbconvert); returns the executed notebook."""
    workdir.mkdir(parents=True, exist_ok=True)
    notebook_in = workdir / f"{assignment}.ipynb"
    with open(notebook_in, "w", encoding="utf-8") as handle:
        nbformat.write(nb, handle)
    command = [sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", "--log-level=WARN",
               f"--ExecutePreprocessor.timeout={CELL_TIMEOUT}", "--ExecutePreprocessor.record_timing=False",
               "--ExecutePreprocessor.kernel_name=python3", "--output", "executed.ipynb",
               "--output-dir", str(workdir), str(notebook_in)]
    env = _env({"NBGRADER_EXECUTION": "autograde"}, package_on_path=False, threads=threads)
    _run(command, workdir, env, f"{assignment}: executing the solution notebook in grading mode")
    return notebooks.read(workdir / "executed.ipynb")


def model_answers(source_nb, assignment: str, title: str) -> str:
    """Markdown: each written question's prompt, model answer and mark scheme."""
    out = [f"# {title}: model answers for the written questions", "",
           f"Generated by `course release` from `source/{assignment}/`; do not edit.", ""]
    written = 0
    for index, cell in enumerate(source_nb.cells):
        if not notebooks.is_manually_graded(cell):
            continue
        written += 1
        meta = notebooks.nbgrader(cell)
        prompt = next((c.source.strip() for c in reversed(source_nb.cells[:index])
                       if c.cell_type == "markdown" and not notebooks.is_manually_graded(c)), "")
        scheme, rest = notebooks.split_regions(cell.source, *notebooks.MARK_SCHEME)
        rest = "\n".join(rest)
        if notebooks.has_marker(rest, notebooks.SOLUTION):
            rest = "\n".join(notebooks.split_regions(rest, *notebooks.SOLUTION)[0])
        points = float(meta.get("points", 0))
        out += [f"## {meta.get('grade_id')} ({points:g} point{'' if points == 1 else 's'})", "",
                "### Prompt", "", prompt or "(no prompt cell before the answer)", "",
                "### Model answer", "", rest.strip() or "(none)", "",
                "### Mark scheme", "", "\n".join(scheme).strip() or "(none)", ""]
    if not written:
        out += ["This assignment has no written questions.", ""]
    return "\n".join(out)


def build_solutions(stage: Stage, run: bool) -> None:
    source_nb = notebooks.read(stage.source_nb_path)
    nb = without_hidden_tests(source_nb)
    if run:
        nb = execute(nb, stage.scratch / "solutions", stage.assignment, stage.threads)
    _normalized(nb, source_nb.metadata)
    stage.solutions_folder.mkdir(parents=True)
    with open(stage.solutions_folder / stage.notebook, "w", encoding="utf-8") as handle:
        nbformat.write(nb, handle)
    (stage.solutions_folder / "model_answers.md").write_text(model_answers(source_nb, stage.assignment,
                                                                            stage.course.assignment(stage.assignment).title),
                                                               encoding="utf-8")


# --- committing ------------------------------------------------------------------------------------------

def commit(course: Course, stages: list[Stage], area: Path) -> None:
    """Replace release/<a> and solutions/<a> with the staged folders; on any error put everything back."""
    backups = area / "previous"
    done = []  # (target, backup or None)
    try:
        for stage in stages:
            for staged, target_root in ((stage.release_folder, course.release_dir),
                                        (stage.solutions_folder, course.solutions_dir)):
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


# --- the whole run ---------------------------------------------------------------------------------------

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


def release(assignments: list[str] | None = None, course: Course | None = None, *, validate: bool = True,
            execute_solutions: bool = True, jobs: int | None = None, sync: bool = True, bundles: bool = True,
            commit_output: bool = True, keep_stage: bool = False, stage_into: Path | None = None,
            log=print) -> Outcome:
    """Run the pipeline; see the module docstring. ``commit_output=False`` stops after staging (the staged
    release/ and solutions/ folders stay in ``stage_into``, which must then be given)."""
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
    outcome.problems += hygiene_problems(course, names)
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
                outcome.problems.append(f"{name}: staging failed: {error}" if not isinstance(error, StepFailed)
                                        else str(error))
        if outcome.problems:
            return outcome
        log(f"generating {', '.join(names)} with nbgrader generate_assignment")
        outcome.problems += _parallel([lambda s=s: generate(s) for s in stages], jobs)
        if not outcome.problems:
            outcome.problems += _parallel([lambda s=s: check_release(s) for s in stages], 1)
        if outcome.problems:
            return outcome
        what = (["validating (source: all pass; release: none pass)"] if validate else []) + \
            (["executing solutions"] if execute_solutions else ["writing solutions (not executed)"])
        log(f"{' and '.join(what)} with {jobs} job(s)")
        outcome.problems += _parallel([step for s in stages for step in _assignment_steps(s, validate,
                                                                                       execute_solutions)], jobs)
        if outcome.problems or not commit_output:
            return outcome
        commit(course, stages, area)
        outcome.released = names
        for stage in stages:
            log(f"{stage.assignment}: wrote {course.display(course.release_dir / stage.assignment)} and "
                f"{course.display(course.solutions_dir / stage.assignment)}")
            if sync:
                path = sync_source(stage)
                if path:
                    outcome.synced_sources.append(path)
                    log(f"{stage.assignment}: updated the Colab link in {course.display(path)}")
        if bundles:
            for name in names:
                try:
                    path = lms.build_bundle(name, course.release_dir, course.dist_dir, course.root)
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


# --- drift -----------------------------------------------------------------------------------------------

def without_outputs(text: str) -> str:
    nb = nbformat.reads(text, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return nbformat.writes(nb)


def compare(generated: Path, committed: Path, label: str, ignore_outputs: bool = False) -> list[str]:
    """Differences between a freshly generated folder and the committed one (empty: no drift)."""
    def files(folder):
        return {p.relative_to(folder).as_posix(): p for p in Path(folder).rglob("*")
                if p.is_file() and ".ipynb_checkpoints" not in p.parts} if Path(folder).is_dir() else {}

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
        new, old = (nbformat.reads(x.decode() if isinstance(x, bytes) else x, as_version=4)
                    for x in (generated, committed))
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
        problems += compare(stage_root / "solutions" / name, course.solutions_dir / name, f"solutions/{name}",
                            ignore_outputs=True)
    return problems


def staged_folders(area: Path, name: str) -> tuple[Path, Path]:
    """(release folder, solutions folder) of one assignment in a staging area."""
    root = Path(area) / name / "course"
    return root / "release" / name, root / "solutions" / name
