"""A run folder: one grading of one assignment's class, and every path inside it (issue #36).

A run is what ``course grade`` (or ``course autograde``, ``course merge``, the demo) writes for one class::

    <run>/intake.json           the intake's manifest: student keys, LMS names and ids, late flags
    <run>/submissions/          the run's copies of the class's notebooks
    <run>/results/<student>.json  one record per student (``store.py``)
    <run>/regrade.json          whose scores moved when the run was graded again (``regrade.py``)
    <run>/shard.json            which shard of the class the run graded (``course grade --shard``; 0/1: all)
    <run>/exports/<format>/     what ``course export`` writes
    <run>/similarity/           ``course similarity``'s report
    <run>/written/              ``course written``'s pages
    <run>/feedback/<lms>/       ``course feedback``'s zips for the LMS, and released.json, what went to whom
    <door>/course/              nbgrader's course folder: gradebook.db, submitted/, formgrader opens it
    <door>/repair/              repaired copies nbgrader graded, and repair.json
    <door>/results/             the nbgrader door's own records

where ``<door>``, the nbgrader door's folder, is ``<run>/nbgrader`` for a run of ``course grade`` and the
demo, and the run itself for a run of ``course autograde`` (whose output folder is the door's folder). That
choice is made here only: ``Run.at`` reads it from the disk (a gradebook at ``<run>/course`` means an
autograde run), ``Run.autograde`` states it.

Nothing here reads or writes a file except ``Run.at``'s one look for that gradebook; this module imports
only the course model, so every floor above may take a ``Run``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from assignments.course import Assignment

INTAKE = "intake.json"
SUBMISSIONS = "submissions"
RESULTS = "results"
EXPORTS = "exports"
REGRADE_REPORT = "regrade.json"
SHARD = "shard.json"
NBGRADER = "nbgrader"  # the nbgrader door's folder inside a run of `course grade`
COURSE = "course"  # nbgrader's course folder inside the door's folder
GRADEBOOK = "gradebook.db"
REPAIR = "repair"
SIMILARITY = "similarity"
WRITTEN = "written"
FEEDBACK = "feedback"
RELEASED = "released.json"
STANDALONE = "standalone"  # `course autograde`'s cross-check: the standalone door's run inside the door's


@dataclass(frozen=True)
class Run:
    """The paths of one run folder. ``results``, ``exports`` and ``course`` default to their place in the
    run; a command given another results folder, exports folder or nbgrader course folder names it here."""

    root: Path
    door_at_root: bool = False  # `course autograde`'s run: the nbgrader door's folder is the run itself
    results: Path | None = None
    exports: Path | None = None
    course: Path | None = None  # nbgrader's course folder (the gradebook's, formgrader's)

    def __post_init__(self):
        root = Path(self.root)
        object.__setattr__(self, "root", root)
        door = root if self.door_at_root else root / NBGRADER
        for name, default_path in (("results", root / RESULTS), ("exports", root / EXPORTS), ("course", door / COURSE)):
            value = getattr(self, name)
            object.__setattr__(self, name, Path(value) if value is not None else default_path)

    # --- constructors -----------------------------------------------------------------------------------

    @classmethod
    def at(cls, path: Path) -> Run:
        """The run at ``path``, whichever command wrote it: a gradebook at ``<path>/course`` marks a run of
        ``course autograde`` (its nbgrader course at its root), else the door is ``<path>/nbgrader``."""
        path = Path(path)
        return cls(path, door_at_root=(path / COURSE / GRADEBOOK).is_file())

    @classmethod
    def of_results(cls, folder: Path) -> Run:
        """The run holding the results folder ``folder`` (``course export --results``), whatever its name."""
        folder = Path(folder)
        return replace(cls.at(folder.parent), results=folder)

    @classmethod
    def of_term(cls, assignment: Assignment) -> Run:
        """This term's run of ``assignment``: grades/<term>/<assignment>/ (``Assignment.grades_dir``)."""
        return cls.at(assignment.grades_dir)

    @classmethod
    def autograde(cls, path: Path) -> Run:
        """A run of ``course autograde`` at ``path``: the nbgrader door's folder is the run itself."""
        return cls(Path(path), door_at_root=True)

    @classmethod
    def autograde_of_term(cls, assignment: Assignment) -> Run:
        """``course autograde``'s default run: the nbgrader door's folder of this term's run."""
        return cls.autograde(cls(assignment.grades_dir).nbgrader)

    @classmethod
    def demo(cls, assignment: Assignment) -> Run:
        """The demo's run of ``assignment``: grades/demo/<assignment>/, never inside a term's folder."""
        return cls(assignment.course.demo_dir / assignment.name)

    def with_exports(self, folder: Path | None) -> Run:
        """This run, its exports written to ``folder`` (None: where they go by default)."""
        return replace(self, exports=Path(folder)) if folder is not None else self

    def with_course(self, folder: Path | None) -> Run:
        """This run, with the nbgrader course folder ``folder`` (None: its own)."""
        return replace(self, course=Path(folder)) if folder is not None else self

    # --- the run's files --------------------------------------------------------------------------------

    @property
    def intake(self) -> Path:
        return self.root / INTAKE

    @property
    def submissions(self) -> Path:
        return self.root / SUBMISSIONS

    @property
    def regrade_report(self) -> Path:
        return self.root / REGRADE_REPORT

    @property
    def shard(self) -> Path:
        """Which shard of the class this run graded (``shards.write_shard``), for ``course merge``."""
        return self.root / SHARD

    @property
    def similarity(self) -> Path:
        return self.root / SIMILARITY

    @property
    def written(self) -> Path:
        return self.root / WRITTEN

    @property
    def feedback(self) -> Path:
        """``course feedback``'s folder: one folder per LMS, and the release record."""
        return self.root / FEEDBACK

    @property
    def released(self) -> Path:
        """The release record: every feedback release of this run, who got what (``delivery/record.py``)."""
        return self.feedback / RELEASED

    @property
    def repair_alone(self) -> Path:
        """``course repair``'s default folder: repaired copies made without grading, beside the results."""
        return self.root / REPAIR

    # --- the nbgrader door's --------------------------------------------------------------------------------

    @property
    def nbgrader(self) -> Path:
        """The nbgrader door's folder: its records (results/), repair/ and course/."""
        return self.root if self.door_at_root else self.root / NBGRADER

    @property
    def nbgrader_run(self) -> Run:
        """The nbgrader door's folder as a run of its own (its records go to its results/)."""
        return self if self.door_at_root else Run.autograde(self.nbgrader)

    @property
    def repair(self) -> Path:
        """Where the nbgrader door keeps the repaired copies it graded, and repair.json."""
        return self.nbgrader / REPAIR

    @property
    def standalone(self) -> Run:
        """``course autograde``'s cross-check: the standalone door's run inside the door's folder."""
        return Run(self.nbgrader / STANDALONE)

    @property
    def gradebook(self) -> Path:
        return self.course / GRADEBOOK

    @property
    def db_url(self) -> str:
        """The SQLite URL of the run's gradebook (absolute, as nbgrader wants it)."""
        return sqlite_url(self.course)


SQLITE = "sqlite:///"  # a SQLite database URL's start; the absolute path of the file follows it


def sqlite_url(course: Path) -> str:
    """The SQLite URL of the gradebook in the nbgrader course folder ``course`` (absolute, as nbgrader wants).
    Every gradebook URL the package makes is made here; ``sqlite_path`` reads one back."""
    return f"{SQLITE}{Path(course).resolve() / GRADEBOOK}"


def sqlite_path(db_url: str | None) -> Path | None:
    """The file a SQLite gradebook URL names (None for no URL, or a URL of another database)."""
    return Path(db_url[len(SQLITE) :]) if db_url and db_url.startswith(SQLITE) else None


def as_run(run: Run | Path) -> Run:
    """A ``Run`` from a run or a run folder's path (``Run.at``): for callers that hold a folder."""
    return run if isinstance(run, Run) else Run.at(Path(run))
