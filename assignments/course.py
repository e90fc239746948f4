"""The course model: where the course lives, which assignments it has, and what each one is made of.

Every module that needs a path, the list of assignments, an assignment's title or its questions asks here,
in the spirit of nbgrader's ``CourseDirectory``::

    course = Course()                         # this repository; tests pass Course(root=tmp_path)
    hw = course.assignment("transformers")
    hw.source_path, hw.release_path, hw.solution_path, hw.suite_dir, hw.stand_ins_path
    hw.questions, hw.autograded_order, hw.max_points("attention_tests")

The catalog below is the one list of assignments: their course order and titles. Points are not typed
here: they are declared once, in the source notebooks' graded cells, and an assignment's total is their
sum (``points.py`` checks that the hidden tests split each cell's points exactly).
"""

from __future__ import annotations

import functools
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from assignments import notebooks
from assignments.settings import DEMO_TERM, Settings

REPO = Path(__file__).resolve().parent.parent
MANIFEST = "grading.json"  # Assignment.grading_manifest, in a copy of the course without source notebooks


@dataclass(frozen=True)
class CatalogEntry:
    name: str  # folder and notebook name: source/<name>/<name>.ipynb
    title: str  # what students see in the LMS and the bundle README


CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry(
        "transformers",
        "Transformers from scratch: attention, a mini BERT, masked-LM pre-training, and frozen-BERT sentiment",
    ),
    CatalogEntry("rnn_attention", "From recurrence to attention"),
    CatalogEntry("transfer_lm", "A transformer language model, and what pre-training buys a classifier"),
)


@dataclass(frozen=True)
class Course:
    """The course's folders (each defaults to ``root/<folder>``) and its catalog."""

    root: Path = REPO  # holds pyproject.toml and nbgrader_config.py
    source_dir: Path | None = None
    release_dir: Path | None = None
    solutions_dir: Path | None = None
    autograder_dir: Path | None = None  # hidden suites: autograder/<assignment>/
    dist_dir: Path | None = None  # LMS zips and the Gradescope bundle
    build_dir: Path | None = None  # release staging (same file system, so moves are renames)
    grades_dir: Path | None = None  # this term's runs: grades/<term>/<assignment>/ (``Settings.term``)
    catalog: tuple[CatalogEntry, ...] = field(default=CATALOG, compare=True)
    # [tool.course] of root/pyproject.toml, read once here (``Settings.read``); every consumer takes it from here.
    settings: Settings | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        root = Path(self.root).resolve()
        object.__setattr__(self, "root", root)
        if self.settings is None:
            object.__setattr__(self, "settings", Settings.read(root))
        for name in (
            "source_dir",
            "release_dir",
            "solutions_dir",
            "autograder_dir",
            "dist_dir",
            "build_dir",
            "grades_dir",
        ):
            value = getattr(self, name)
            default = root / name.removesuffix("_dir")
            if name == "grades_dir":
                default = root / "grades" / self.settings.term
            object.__setattr__(self, name, Path(value).resolve() if value is not None else default)

    @property
    def demo_dir(self) -> Path:
        """The demo's own runs, beside the terms and never inside one: grades/demo/<assignment>/."""
        return self.root / "grades" / DEMO_TERM

    # --- which assignments ------------------------------------------------------------------------------

    @property
    def order(self) -> list[str]:
        """Catalog assignments in course order."""
        return [entry.name for entry in self.catalog]

    def source_folders(self) -> list[str]:
        """Folders of source/ that hold a notebook, in name order."""
        if not self.source_dir.is_dir():
            return []
        return sorted(p.name for p in self.source_dir.iterdir() if p.is_dir() and any(p.glob("*.ipynb")))

    def names(self) -> list[str]:
        """Catalog assignments plus any source folder the catalog does not know yet (reported as a problem)."""
        return self.order + [name for name in self.source_folders() if name not in self.order]

    def present(self) -> list[str]:
        """Assignments with a source notebook: catalog ones in course order, then unknown folders."""
        folders = set(self.source_folders())
        return [name for name in self.order if name in folders] + sorted(folders - set(self.order))

    def entry(self, name: str) -> CatalogEntry:
        for item in self.catalog:
            if item.name == name:
                return item
        raise KeyError(f"{name!r} is not in the course catalog (assignments/course.py); known: {', '.join(self.order)}")

    def assignment(self, name: str) -> Assignment:
        return Assignment(self, name)

    def display(self, path: Path) -> str:
        """``path`` relative to the course root when inside it (for messages)."""
        try:
            return str(Path(path).resolve().relative_to(self.root))
        except ValueError:
            return str(path)


@dataclass(frozen=True)
class Assignment:
    """One assignment of a course: its files, its catalog entry and its questions (read from the source)."""

    course: Course
    name: str

    # --- catalog ----------------------------------------------------------------------------------------

    @property
    def in_catalog(self) -> bool:
        return self.name in self.course.order

    @property
    def title(self) -> str:
        return self.course.entry(self.name).title if self.in_catalog else self.name

    # --- files ------------------------------------------------------------------------------------------

    @property
    def source_folder(self) -> Path:
        return self.course.source_dir / self.name

    @property
    def release_folder(self) -> Path:
        return self.course.release_dir / self.name

    @property
    def solutions_folder(self) -> Path:
        return self.course.solutions_dir / self.name

    @property
    def source_path(self) -> Path:
        return _only_notebook(self.source_folder)

    @property
    def release_path(self) -> Path:
        return _only_notebook(self.release_folder)

    @property
    def solution_path(self) -> Path:
        return self.solutions_folder / f"{self.name}.ipynb"

    @property
    def suite_dir(self) -> Path:
        """The hidden pytest suite, ``autograder/<name>/``."""
        return self.course.autograder_dir / self.name

    @property
    def stand_ins_path(self) -> Path:
        return self.suite_dir / "stand_ins.py"

    @property
    def mutants_dir(self) -> Path:
        return self.suite_dir / "mutants"

    @property
    def shortcuts_dir(self) -> Path:
        return self.suite_dir / "shortcuts"

    @property
    def optional_answers_path(self) -> Path:
        """Model answers of the optional, ungraded questions (staff only), ``autograder/<name>/optional_answers.md``:
        not beside the source notebook, whose folder ships to students whole. ``course release`` copies them
        into ``solutions/<name>/model_answers.md`` (``release/solutions.py``)."""
        return self.suite_dir / "optional_answers.md"

    @property
    def variants_dir(self) -> Path:
        """Correct answers written differently, in the mutants' format (each must keep full marks)."""
        return self.suite_dir / "variants"

    @property
    def grades_dir(self) -> Path:
        """This term's run folder of the assignment (what is inside it: ``runs.folder.Run.of_term``)."""
        return self.course.grades_dir / self.name

    # --- notebooks and questions ------------------------------------------------------------------------

    def source_notebook(self):
        return notebooks.read(self.source_path)

    def release_notebook(self):
        return notebooks.read(self.release_path)

    @property
    def manifest_path(self) -> Path:
        """Where a copy of the course without the source notebook (the Gradescope bundle) keeps what
        grading reads from it: ``source/<name>/grading.json`` (``grading_manifest``)."""
        return self.source_folder / MANIFEST

    def grading_manifest(self) -> dict:
        """The questions (grade_id, points, kind, heading) and shortcut rules of the source notebook, as plain
        JSON: all that grading needs of it, without a line of the solutions."""
        rules = notebooks.shortcut_rules(self.source_notebook())
        return {
            "assignment": self.name,
            # The heading goes along so a copy without the notebook titles questions as students know them.
            "questions": [[q.grade_id, q.points, q.kind, q.heading] for q in self.questions],
            "shortcut_rules": {q: {"forbidden": list(r.forbidden), "penalty": r.penalty} for q, r in rules.items()},
        }

    def _manifest(self) -> dict | None:
        """The grading manifest where there is no source notebook but a manifest; None otherwise."""
        if any(self.source_folder.glob("*.ipynb")) or not self.manifest_path.is_file():
            return None
        return json.loads(self.manifest_path.read_text(encoding="utf-8"))

    @property
    def questions(self) -> list[notebooks.Question]:
        """Every graded cell of the source notebook in notebook order (re-read when the file changes), or
        of the grading manifest that stands for it."""
        manifest = self._manifest()
        if manifest is not None:
            # [grade_id, points, kind, heading]; manifests written before headings were kept have three.
            return [
                notebooks.Question(g, float(points), kind, *heading)
                for g, points, kind, *heading in manifest["questions"]
            ]
        path = self.source_path
        stat = path.stat()
        return list(_questions(str(path), stat.st_mtime_ns, stat.st_size))

    @property
    def shortcut_rules(self) -> dict[str, notebooks.ShortcutRule]:
        """The shortcut rules the source notebook declares (``notebooks.shortcut_rules``), or the manifest's."""
        manifest = self._manifest()
        if manifest is None:
            return notebooks.shortcut_rules(self.source_notebook())
        return {
            q: notebooks.ShortcutRule(q, tuple(r["forbidden"]), r["penalty"])
            for q, r in manifest["shortcut_rules"].items()
        }

    @property
    def autograded_order(self) -> list[str]:
        """grade_ids of the autograded questions in notebook order (the order the hidden tests run in)."""
        return [q.grade_id for q in self.questions if q.kind == "autograded"]

    def max_points(self, grade_id: str) -> float:
        for question in self.questions:
            if question.grade_id == grade_id:
                return question.points
        raise KeyError(f"{self.name} has no graded cell {grade_id!r}")

    @property
    def total_points(self) -> float:
        return sum(q.points for q in self.questions)


def _only_notebook(folder: Path) -> Path:
    found = sorted(folder.glob("*.ipynb")) if folder.is_dir() else []
    if len(found) != 1:
        raise FileNotFoundError(f"expected one notebook in {folder}, found {len(found)}")
    return found[0]


@functools.lru_cache(maxsize=64)
def _questions(path: str, mtime_ns: int, size: int) -> tuple[notebooks.Question, ...]:
    return tuple(notebooks.questions(notebooks.read(Path(path))))


@functools.cache
def default() -> Course:
    """This repository's course: the folders beside the package (also inside the Gradescope bundle)."""
    return Course()


def resolve(assignment: Assignment | str) -> Assignment:
    """The Assignment a name of this repository's course stands for (an Assignment as it is). For the edges
    only: an entry point that is given a name (a platform's runner, a benchmark) and the test kit, whose
    API hidden suites and notebooks call with a name. Inside the package, functions take the Assignment."""
    return assignment if isinstance(assignment, Assignment) else default().assignment(assignment)


def points_report(assignment: Assignment) -> tuple[str, bool]:
    """A printable block for ``course catalog``: each graded cell and its points, the total they make,
    and whether the catalog knows the assignment and its hidden tests split each cell's points exactly."""
    from assignments.points import split_problems

    name = assignment.name
    lines = [f"{name}: {assignment.title}"]
    try:
        questions = assignment.questions
    except FileNotFoundError:
        lines.append(f"  (no source notebook yet: source/{name}/{name}.ipynb)")
        return "\n".join(lines), True
    width = max([len(q.grade_id or "?") for q in questions] + [8])
    for q in questions:
        lines.append(f"  {q.grade_id or '?':<{width}}  {q.kind:<10}  {q.points:>5g}")
    auto = sum(q.points for q in questions if q.kind == "autograded")
    manual = sum(q.points for q in questions if q.kind == "manual")
    lines.append(f"  {'total':<{width}}  {'':<10}  {auto + manual:>5g}  (autograded {auto:g}, manual {manual:g})")
    problems = split_problems(assignment)
    if not assignment.in_catalog:
        problems.append(f"{name} is not in the course catalog (assignments/course.py)")
    lines += [f"  PROBLEM: {problem}" for problem in problems]
    return "\n".join(lines), not problems


def catalog_report(course: Course) -> tuple[str, bool]:
    """``course catalog``: every assignment's ``points_report``, then the course's total; and whether every
    report is fine."""
    reports = [points_report(course.assignment(name)) for name in course.names()]
    total = sum(course.assignment(name).total_points for name in course.present())
    text = "\n\n".join(block for block, _ in reports)
    text += f"\n\ncourse total: {total:g} points (the sum of the source notebooks' graded cells)"
    return text, all(fine for _, fine in reports)


def clean(course: Course, term: str | None = None) -> list[Path]:
    """Remove what can be made again (the demo's runs, release staging, bundles) and, only when named, one
    term's runs: those hold hand grades that exist nowhere else. Returns the folders removed."""
    targets = [course.demo_dir, course.build_dir, course.dist_dir]
    if term:
        targets.append(course.root / "grades" / term)
    removed = []
    for target in targets:
        if target.exists():
            shutil.rmtree(target)
            removed.append(target)
    return removed
