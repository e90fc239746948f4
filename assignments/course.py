"""The course model: where the course lives, which assignments it has, and what each one is made of.

Every module that needs a path, the list of assignments, an assignment's title or its questions asks here,
in the spirit of nbgrader's ``CourseDirectory``::

    course = Course()                         # this repository; tests pass Course(root=tmp_path)
    hw = course.assignment("transformers")
    hw.source_path, hw.release_path, hw.solution_path, hw.suite_dir, hw.stand_ins_path
    hw.questions, hw.autograded_order, hw.max_points("attention_tests")

The catalog below is the one list of assignments: their course order, titles and declared point totals. The
declared totals are the contract with the LMS gradebook: each source notebook's graded cells must add up
to its assignment's ``total_points`` (``course catalog`` prints both, and a test checks they agree).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

from . import notebooks

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class CatalogEntry:
    name: str            # folder and notebook name: source/<name>/<name>.ipynb
    title: str           # what students see in the LMS and the bundle README
    total_points: float  # declared total; the notebook's graded cells must add up to it


CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry("transformers", "Transformers from scratch: attention, a mini BERT, masked-LM pre-training, "
                                 "and frozen-BERT sentiment", 48),
    CatalogEntry("rnn_attention", "From recurrence to attention", 40),
    CatalogEntry("transfer_lm", "A transformer language model, and what pre-training buys a classifier", 32),
)


@dataclass(frozen=True)
class Course:
    """The course's folders (each defaults to ``root/<folder>``) and its catalog."""
    root: Path = REPO                      # holds pyproject.toml and nbgrader_config.py
    source_dir: Path | None = None
    release_dir: Path | None = None
    solutions_dir: Path | None = None
    autograder_dir: Path | None = None     # hidden suites: autograder/<assignment>/
    dist_dir: Path | None = None           # LMS zips and the Gradescope bundle
    build_dir: Path | None = None          # release staging (same file system, so moves are renames)
    grades_dir: Path | None = None         # results of the grading commands
    catalog: tuple[CatalogEntry, ...] = field(default=CATALOG, compare=True)

    def __post_init__(self):
        root = Path(self.root).resolve()
        object.__setattr__(self, "root", root)
        for name in ("source_dir", "release_dir", "solutions_dir", "autograder_dir", "dist_dir", "build_dir",
                     "grades_dir"):
            value = getattr(self, name)
            default = root / name.removesuffix("_dir")
            object.__setattr__(self, name, Path(value).resolve() if value is not None else default)

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
        raise KeyError(f"{name!r} is not in the course catalog (assignments/course.py); "
                       f"known: {', '.join(self.order)}")

    def assignment(self, name: str) -> "Assignment":
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

    @property
    def declared_points(self) -> float | None:
        return self.course.entry(self.name).total_points if self.in_catalog else None

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
    def variants_dir(self) -> Path:
        """Correct answers written differently, in the mutants' format (each must keep full marks)."""
        return self.suite_dir / "variants"

    @property
    def grades_dir(self) -> Path:
        return self.course.grades_dir / self.name

    @property
    def nbgrader_door_dir(self) -> Path:
        """Where the nbgrader door (``course autograde``, the demo) keeps its records by default."""
        return self.grades_dir / "nbgrader"

    @property
    def similarity_dir(self) -> Path:
        """Where ``course similarity`` writes its report by default (beside the assignment's grades)."""
        return self.grades_dir / "similarity"

    # --- notebooks and questions ------------------------------------------------------------------------

    def source_notebook(self):
        return notebooks.read(self.source_path)

    def release_notebook(self):
        return notebooks.read(self.release_path)

    @property
    def questions(self) -> list[notebooks.Question]:
        """Every graded cell of the source notebook in notebook order (re-read when the file changes)."""
        path = self.source_path
        stat = path.stat()
        return list(_questions(str(path), stat.st_mtime_ns, stat.st_size))

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


@functools.lru_cache(maxsize=None)
def default() -> Course:
    """This repository's course: the folders beside the package (also inside the Gradescope bundle)."""
    return Course()


def resolve(assignment: "Assignment | str") -> Assignment:
    """Accept an Assignment or a name of the default course (the kernel-side door only has a name)."""
    return assignment if isinstance(assignment, Assignment) else default().assignment(assignment)


def points_report(assignment: Assignment) -> tuple[str, bool]:
    """A printable block for ``course catalog``: each graded cell and its points against the declared
    total; and whether they agree."""
    name = assignment.name
    lines = [f"{name}: {assignment.title}"]
    try:
        questions = assignment.questions
    except FileNotFoundError:
        lines.append(f"  (no source notebook yet: source/{name}/{name}.ipynb)")
        lines.append(f"  declared total {assignment.declared_points:g}")
        return "\n".join(lines), True
    width = max([len(q.grade_id or "?") for q in questions] + [8])
    for q in questions:
        lines.append(f"  {q.grade_id or '?':<{width}}  {q.kind:<10}  {q.points:>5g}")
    auto = sum(q.points for q in questions if q.kind == "autograded")
    manual = sum(q.points for q in questions if q.kind == "manual")
    total = auto + manual
    lines.append(f"  {'total':<{width}}  {'':<10}  {total:>5g}  (autograded {auto:g}, manual {manual:g})")
    declared = assignment.declared_points
    if declared is None:
        lines.append(f"  PROBLEM: {name} is not in the course catalog (assignments/course.py)")
        return "\n".join(lines), False
    if abs(total - declared) >= 1e-9:
        lines.append(f"  PROBLEM: the notebook's points add up to {total:g}, the catalog declares "
                     f"{declared:g} (assignments/course.py)")
        return "\n".join(lines), False
    lines.append(f"  declared total {declared:g}: ok")
    return "\n".join(lines), True
