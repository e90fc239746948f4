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

Output is deterministic: release notebooks are byte-identical across runs, and so are solution notebooks
executed with the same library versions (each records them; see the solutions section).
``course release --check`` regenerates into a scratch folder and reports any drift from what is committed,
changing nothing (add ``--no-validate --no-execute`` for a drift check in about a minute).
``--no-validate``/``--no-execute`` are for quick iterations only: commit what a plain ``course release``
wrote. Other commands: ``course catalog`` (questions, points, totals against ``assignments/catalog.py``),
``course lms`` (bundles only), ``course hygiene`` (step 1 only).
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

from . import catalog, hygiene, lms, notebooks
from .grading.environment import GRADING_ENV
from .paths import REPO

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


@dataclass(frozen=True)
class Course:
    """Where the pipeline reads and writes; tests point these at temporary folders."""
    root: Path = REPO                      # holds pyproject.toml ([tool.course]) and nbgrader_config.py
    source_dir: Path | None = None         # default root/source
    release_dir: Path | None = None        # default root/release
    solutions_dir: Path | None = None      # default root/solutions
    dist_dir: Path | None = None           # default root/dist
    stage_parent: Path | None = None       # default root/build (same file system, so moves are renames)

    def __post_init__(self):
        root = Path(self.root).resolve()
        object.__setattr__(self, "root", root)
        for name, default in (("source_dir", "source"), ("release_dir", "release"), ("solutions_dir", "solutions"),
                              ("dist_dir", "dist"), ("stage_parent", "build")):
            value = getattr(self, name)
            object.__setattr__(self, name, Path(value).resolve() if value is not None else root / default)

    def display(self, path: Path) -> str:
        try:
            return str(Path(path).resolve().relative_to(self.root))
        except ValueError:
            return str(path)


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
    for name in catalog.all_names(course.source_dir):
        folder = course.source_dir / name
        (names if folder.is_dir() and any(folder.glob("*.ipynb")) else missing).append(name)
    return names, missing


def source_path(course: Course, assignment: str) -> Path:
    return notebooks.notebook_path(assignment, course.source_dir)


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
    env = dict(os.environ)
    # nbgrader runs `alembic` (and kernels run `python`) from PATH: put this interpreter's bin first.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent)] + [p for p in env.get("PATH", "").split(os.pathsep) if p])
    env.pop("NBGRADER_EXECUTION", None)
    env.pop("NBGRADER_VALIDATING", None)
    if package_on_path:
        env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    else:
        env.pop("PYTHONPATH", None)
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
    return [sys.executable, "-m", "nbgrader", *args, *quiet]


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
        for begin, end in (hygiene.SOLUTION, hygiene.HIDDEN_TESTS, hygiene.MARK_SCHEME):
            region, text = hygiene.split_regions(text, begin, end)
            text = "\n".join(text)
            inside += region
        if meta.get("solution") and not hygiene.has_marker(cell.source, hygiene.SOLUTION):
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


# Executing the solutions is reproducible: with the same library versions (OUTPUT_LIBRARIES), Python version
# and machine architecture, every execution writes the same bytes, so a release (or `course demo`) of an
# unchanged source leaves the committed solutions/ as they are (tests/test_release.py checks it). Measured on
# x86-64: identical with torch's AVX2 and AVX-512 kernels and MKL's compatible code path; torch's unvectorized
# kernels (ATEN_CPU_CAPABILITY=default) changed one printed digit. What would otherwise vary from run to run:
SOLUTION_ENV = {
    **GRADING_ENV,   # grading mode, offline, no progress bars, no accelerator (graded runs are on the CPU)
    # One thread in every pool: how a float sum is split between threads decides its last bits, which training
    # then carries into printed numbers (and the machine's core count would decide the split).
    "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "RAYON_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "PYTHONHASHSEED": "0",   # the iteration order of sets and dicts of strings
}
# Elapsed times in printed text ("epoch 1: 0.2 s", "1.5 s per epoch", "12 ms"): the number becomes N.
_DURATION = re.compile(r"(?<![\w.])\d+(?:\.(\d+))?(?= (?:s|ms|sec|secs|seconds?|min|minutes?)\b|ms\b)")
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# The libraries whose versions decide the printed numbers and the figures (with the Python version and the
# machine's architecture): a solution notebook records them (metadata course.executed_with); where they
# differ, the same outputs cannot be expected (a new library version may initialise or compute differently).
OUTPUT_LIBRARIES = ("torch", "transformers", "tokenizers", "datasets", "numpy", "matplotlib", "pillow",
                    "ipykernel", "ipython")


def execution_environment() -> dict:
    """What the solutions are executed with here (kernels run this interpreter's environment)."""
    import importlib.metadata
    import platform

    found = {"python": "%d.%d" % sys.version_info[:2], "machine": platform.machine()}
    for name in OUTPUT_LIBRARIES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    return found


def executed_with(nb) -> dict | None:
    return nb.metadata.get("course", {}).get("executed_with")


def without_execution_record(nb) -> None:
    course = nb.metadata.get("course", {})
    course.pop("executed_with", None)
    if not course:
        nb.metadata.pop("course", None)


def _without_elapsed_times(text: str) -> str:
    return _DURATION.sub(lambda m: "N" + (".N" if m.group(1) else ""), text)


def _coalesced(outputs: list) -> list:
    """Consecutive stream outputs of one stream as one: the kernel flushes a stream every 0.2 s and at
    the end of a cell, so where a cell's printed text is split depends on timing."""
    merged = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (output.get("output_type") == "stream" and previous is not None
                and previous.get("output_type") == "stream" and previous.get("name") == output.get("name")):
            previous["text"] += output["text"]
        else:
            merged.append(output)
    return merged


def _png_without_software(data: str) -> str:
    """A base64 PNG without its "Software" text chunk (matplotlib writes its version there)."""
    import base64
    import struct

    raw = base64.b64decode(data)
    if not raw.startswith(_PNG_SIGNATURE):
        return data
    kept, at = [raw[:8]], 8
    while at + 8 <= len(raw):
        length, kind = struct.unpack(">I4s", raw[at:at + 8])
        chunk = raw[at:at + 12 + length]
        if not (kind == b"tEXt" and chunk[8:].startswith(b"Software\x00")):
            kept.append(chunk)
        at += 12 + length
    return base64.b64encode(b"".join(kept)).decode("ascii") + ("\n" if data.endswith("\n") else "")


def _normalized(nb, metadata) -> None:
    """Keep what execution adds that varies by machine or run out of the notebook: its metadata (the
    source's is kept), widget views, elapsed times in printed text, where printed text was split, and
    matplotlib's version in figures."""
    nb.metadata = copy.deepcopy(metadata)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        outputs = [o for o in cell.outputs if not (o.get("output_type") == "display_data"
                                                    and "application/vnd.jupyter.widget-view+json" in o.get("data", {}))]
        cell.outputs = _coalesced(outputs)
        for output in cell.outputs:
            if output.get("output_type") == "stream":
                output["text"] = _without_elapsed_times(output["text"])
            data = output.get("data", {})
            if "text/plain" in data:
                data["text/plain"] = _without_elapsed_times(data["text/plain"])
            if "image/png" in data:
                data["image/png"] = _png_without_software(data["image/png"])


def execute(nb, workdir: Path, assignment: str):
    """Run ``nb`` in a fresh kernel in grading mode (nbconvert) with ``SOLUTION_ENV``; returns the executed
    notebook."""
    workdir.mkdir(parents=True, exist_ok=True)
    notebook_in = workdir / f"{assignment}.ipynb"
    with open(notebook_in, "w", encoding="utf-8") as handle:
        nbformat.write(nb, handle)
    command = [sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", "--log-level=WARN",
               f"--ExecutePreprocessor.timeout={CELL_TIMEOUT}", "--ExecutePreprocessor.record_timing=False",
               "--ExecutePreprocessor.kernel_name=python3", "--output", "executed.ipynb",
               "--output-dir", str(workdir), str(notebook_in)]
    env = _env(SOLUTION_ENV, package_on_path=False)
    _run(command, workdir, env, f"{assignment}: executing the solution notebook in grading mode")
    return notebooks.read(workdir / "executed.ipynb")


def model_answers(source_nb, assignment: str) -> str:
    """Markdown: each written question's prompt, model answer and mark scheme."""
    out = [f"# {catalog.title(assignment)}: model answers for the written questions", "",
           f"Generated by `course release` from `source/{assignment}/`; do not edit.", ""]
    written = 0
    for index, cell in enumerate(source_nb.cells):
        if not notebooks.is_manually_graded(cell):
            continue
        written += 1
        meta = notebooks.nbgrader(cell)
        prompt = next((c.source.strip() for c in reversed(source_nb.cells[:index])
                       if c.cell_type == "markdown" and not notebooks.is_manually_graded(c)), "")
        scheme, rest = hygiene.split_regions(cell.source, *hygiene.MARK_SCHEME)
        rest = "\n".join(rest)
        if hygiene.has_marker(rest, hygiene.SOLUTION):
            rest = "\n".join(hygiene.split_regions(rest, *hygiene.SOLUTION)[0])
        points = float(meta.get("points", 0))
        out += [f"## {meta.get('grade_id')} ({points:g} point{'' if points == 1 else 's'})", "",
                "### Prompt", "", prompt or "(no prompt cell before the answer)", "",
                "### Model answer", "", rest.strip() or "(none)", "",
                "### Mark scheme", "", "\n".join(scheme).strip() or "(none)", ""]
    if not written:
        out += ["This assignment has no written questions.", ""]
    return "\n".join(out)


def solution_notebook(source_nb, workdir: Path, assignment: str, run: bool = True):
    """The source without its hidden tests, executed in grading mode in ``workdir`` (unless ``run`` is
    false), normalized, and with the environment it was executed in recorded."""
    nb = without_hidden_tests(source_nb)
    if run:
        nb = execute(nb, workdir, assignment)
    _normalized(nb, source_nb.metadata)
    if run:
        nb.metadata.setdefault("course", {})["executed_with"] = execution_environment()
    return nb


def build_solutions(stage: Stage, run: bool) -> None:
    source_nb = notebooks.read(stage.source_nb_path)
    nb = solution_notebook(source_nb, stage.scratch / "solutions", stage.assignment, run)
    stage.solutions_folder.mkdir(parents=True)
    with open(stage.solutions_folder / stage.notebook, "w", encoding="utf-8") as handle:
        nbformat.write(nb, handle)
    (stage.solutions_folder / "model_answers.md").write_text(model_answers(source_nb, stage.assignment),
                                                               encoding="utf-8")


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
        differences = ", ".join(f"{key} {then.get(key)} there, {here.get(key)} here"
                                for key in here if then.get(key) != here.get(key))
        notes.append(f"{path.parent.name}/{path.name}: executed without errors; its committed outputs were kept "
                     f"(executed with other versions: {differences}; `course release` rewrites them)")
    return notes


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
        course.stage_parent.mkdir(parents=True, exist_ok=True)
        area = Path(tempfile.mkdtemp(prefix="release-", dir=course.stage_parent))
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


# --- command line ----------------------------------------------------------------------------------------

def _course(args) -> Course:
    return Course(Path(args.root)) if getattr(args, "root", None) else Course()


def cmd_release(args) -> int:
    course = _course(args)
    if args.check:
        with tempfile.TemporaryDirectory(prefix="release-check-", dir=_mkdir(course.stage_parent)) as area:
            outcome = release(args.assignment or None, course, validate=not args.no_validate,
                              execute_solutions=not args.no_execute, jobs=args.jobs, commit_output=False,
                              stage_into=Path(area), sync=False, bundles=False)
            problems = outcome.problems or drift(course, Path(area), [
                a for a in (args.assignment or available(course)[0])])
        for problem in problems:
            print(problem)
        print("release/ and solutions/ match the source" if not problems else
              f"{len(problems)} problem(s); run `course release` to regenerate")
        return 1 if problems else 0
    outcome = release(args.assignment or None, course, validate=not args.no_validate,
                      execute_solutions=not args.no_execute, jobs=args.jobs, bundles=not args.no_lms,
                      keep_stage=args.keep_stage)
    for problem in outcome.problems:
        print(problem)
    for problem in outcome.after_commit:
        print(problem)
    if outcome.ok and outcome.after_commit:
        print(f"released {', '.join(outcome.released)}, but {len(outcome.after_commit)} problem(s) after that; "
              "fix them and run `course lms`")
        return 1
    if outcome.ok:
        print(f"released {', '.join(outcome.released) or 'nothing'}")
        if args.no_validate or args.no_execute:
            print("note: --no-validate/--no-execute output is for quick checks; release without flags before committing")
        return 0
    print(f"release refused: {len(outcome.problems)} problem(s); release/ and solutions/ were not changed")
    return 1


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def cmd_catalog(args) -> int:
    course = _course(args)
    ok = True
    blocks = []
    for name in catalog.all_names(course.source_dir):
        text, fine = catalog.render(name, course.source_dir)
        blocks.append(text)
        ok &= fine
    print("\n\n".join(blocks))
    declared = sum(entry.total_points for entry in catalog.CATALOG)
    print(f"\ncourse total declared: {declared:g} points")
    return 0 if ok else 1


def cmd_lms(args) -> int:
    course = _course(args)
    names = args.assignment or [n for n in catalog.all_names(course.source_dir)
                                if (course.release_dir / n).is_dir()]
    status = 0
    for name in names:
        try:
            path = lms.build_bundle(name, course.release_dir, course.dist_dir, course.root)
            print(f"{name}: {course.display(path)}")
        except FileNotFoundError as error:
            print(f"{name}: {error}")
            status = 1
    if not names:
        print("no release folders yet; run `course release`")
        status = 1
    return status


def cmd_hygiene(args) -> int:
    course = _course(args)
    names = args.assignment or available(course)[0]
    problems = hygiene_problems(course, names)
    for problem in problems:
        print(problem)
    print(f"{len(problems)} problem(s)" if problems else f"clean: {', '.join(names) or 'no source notebooks'}")
    return 1 if problems else 0


def add_commands(sub) -> None:
    """Register `course release`, `course catalog`, `course lms` and `course hygiene` (argparse subparsers)."""
    cmd = sub.add_parser("release", help="regenerate release/, solutions/ and dist/lms/ from source/",
                         description="Hygiene checks, nbgrader generate_assignment, validate (source: all tests "
                                     "pass; release: none pass), executed solutions, LMS bundles. Nothing in "
                                     "release/ or solutions/ changes unless every step succeeds.")
    cmd.add_argument("assignment", nargs="*", help="default: every assignment with a source notebook")
    cmd.add_argument("--no-validate", action="store_true", help="skip nbgrader validate (quick checks only)")
    cmd.add_argument("--no-execute", action="store_true",
                     help="write solutions without executing them (quick checks only)")
    cmd.add_argument("--check", action="store_true",
                     help="regenerate into a scratch folder and report drift from release/ and solutions/; "
                          "changes nothing")
    cmd.add_argument("--jobs", type=int, help="parallel notebook runs (default: CPU count, at most 8)")
    cmd.add_argument("--no-lms", action="store_true", help="do not rebuild dist/lms/<assignment>.zip")
    cmd.add_argument("--keep-stage", action="store_true", help="keep the staging folder under build/")
    cmd.set_defaults(func=cmd_release)
    _root_option(cmd)

    cat = sub.add_parser("catalog", help="assignments, their questions (grade_id, kind, points) and totals")
    cat.set_defaults(func=cmd_catalog)
    _root_option(cat)

    bundle = sub.add_parser("lms", help="rebuild dist/lms/<assignment>.zip from the committed release/")
    bundle.add_argument("assignment", nargs="*", help="default: every released assignment")
    bundle.set_defaults(func=cmd_lms)
    _root_option(bundle)

    check = sub.add_parser("hygiene", help="check source notebooks (what `course release` checks first)")
    check.add_argument("assignment", nargs="*", help="default: every assignment with a source notebook")
    check.set_defaults(func=cmd_hygiene)
    _root_option(check)


def _root_option(parser) -> None:
    parser.add_argument("--root", help="course folder holding source/, release/, pyproject.toml and "
                                       "nbgrader_config.py (default: this checkout)")
