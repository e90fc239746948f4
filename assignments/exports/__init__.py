"""Exports from the results model: Gradescope, Canvas CSV, nbgrader gradebook, feedback, class report.

Every exporter reads ``SubmissionResult`` records (``grades/<assignment>/results/<student>.json``,
see ``results/store.py``); none re-parses logs or notebooks. Each format is one writer in ``WRITERS``
(an ``ExportJob`` in, the files written out); a new format is one function and one entry there.
``course export`` (in ``cli/export.py``) runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ExportJob:
    """What every writer receives: the records with hand grades merged in, the grader's own records (what
    goes into the gradebook's automatic scores), and where things are."""

    assignment: str
    results: list  # SubmissionResult, hand grades from the gradebook merged in
    graded: list  # SubmissionResult as the grader wrote them
    out: Path  # the exports folder; each writer writes under out/<format>/
    roster: dict  # student key -> LMS names and ids
    db_url: str  # the nbgrader gradebook
    course_root: Path  # the nbgrader course folder holding that gradebook
    canvas: object = None  # canvas.CanvasOptions: the Canvas assignment and how ungraded answers count


def _gradescope(job: ExportJob) -> list[Path]:
    from .gradescope import write_all

    return write_all(job.results, job.out / "gradescope")


def _canvas(job: ExportJob) -> list[Path]:
    from .canvas import write_canvas_csv

    return [write_canvas_csv(job.results, job.out / "canvas" / f"{job.assignment}_canvas.csv", job.canvas, job.roster)]


def _nbgrader(job: ExportJob) -> list[Path]:
    """Raises LookupError or RuntimeError when the gradebook does not know the assignment."""
    from .csv_safe import neutralise_file
    from .nbgrader_gradebook import nbgrader_export, place_missing_notebooks, report_scores, write_gradebook

    report = write_gradebook(job.graded, job.assignment, job.db_url, job.roster)
    place_missing_notebooks(job.graded, job.assignment, job.course_root, job.db_url)
    for problem in report.problems:
        print(f"nbgrader: {problem}")
    # nbgrader writes its CSV itself; the course's arithmetic replaces its scores, then the cells a
    # student influenced are neutralised.
    written = nbgrader_export(job.course_root, job.out / "nbgrader" / "grades.csv", job.db_url, job.assignment)
    return [neutralise_file(report_scores(written, job.results, job.assignment))]


def _feedback(job: ExportJob) -> list[Path]:
    from .feedback import write_feedback

    return write_feedback(job.results, job.out / "feedback", roster=job.roster)


def _report_writer(job: ExportJob) -> list[Path]:
    from .report import write_report

    return write_report(job.results, job.out / "report", job.assignment)


# The registry: format name -> writer, in the order ``course export`` runs them by default.
WRITERS: dict[str, Callable[[ExportJob], list[Path]]] = {
    "gradescope": _gradescope,
    "canvas": _canvas,
    "nbgrader": _nbgrader,
    "feedback": _feedback,
    "report": _report_writer,
}
FORMATS = tuple(WRITERS)


def export(
    assignment: str,
    results_folder: Path | None = None,
    out: Path | None = None,
    formats=FORMATS,
    roster_path: Path | None = None,
    db_url: str | None = None,
    course_root: Path | None = None,
    strict: bool = True,
    problems: list[str] | None = None,
    canvas_options=None,
    excused: list[str] = (),
    late_policy=None,
) -> dict[str, list[Path]]:
    """Write the chosen exports for ``assignment``; returns format -> files written.

    Everything is read from one run folder, the one holding ``results_folder`` (default: the term's
    folder of the assignment, ``Assignment.grades_dir``): the roster is that run's ``intake.json``
    (or ``roster_path``: an intake manifest or a Canvas gradebook export), the gradebook is that run's
    nbgrader course folder (``run_course_folder``) unless ``db_url``/``course_root`` name one (a SQLite
    ``db_url`` alone names its folder as the course folder, where formgrader's notebooks go). Nothing
    from another run is read. Hand grades and comments a grader entered in formgrader are merged into
    every export; the gradebook itself only ever receives the grader's automatic scores, so its hand
    grades stay. Excused questions and the late policy (``adjust.py``: the course configuration, plus
    ``excused``; ``late_policy`` replaces the configured policy) are applied once, before any writer;
    when the course's penalty is in the Canvas CSV and the instructor has not said whether Canvas' own
    Late Policy is on, a warning says how to choose.
    When the gradebook lacks the assignment, the nbgrader format is skipped: with ``strict`` a
    ``LookupError`` follows once the other formats are written, without it the reason goes to
    ``problems`` (or is printed when no list is given).
    """
    from ..config import settings
    from ..course import resolve
    from ..results import store
    from . import adjust, canvas
    from .nbgrader_gradebook import default_db_url, merge_hand_grades, read_hand_grades, run_course_folder

    results_folder = Path(results_folder) if results_folder else store.results_dir(assignment)
    run = results_folder.parent
    out = Path(out) if out else run / "exports"
    results = store.load_results(results_folder, assignment)
    if not results:
        raise FileNotFoundError(f"no results for {assignment} in {results_folder}")
    roster = store.load_roster(run / "intake.json")
    if roster_path and Path(roster_path).suffix.lower() == ".csv":
        # A Canvas gradebook export adds names, SIS ids and sections; the intake keeps late flags.
        for student, info in canvas.read_gradebook_export(Path(roster_path)).items():
            roster[student] = {**roster.get(student, {}), **info}
    elif roster_path:
        roster = store.load_roster(Path(roster_path))
    # Formgrader's course folder is the one holding the gradebook: notebooks are placed beside it.
    root = Path(course_root) if course_root else (_sqlite_folder(db_url) or run_course_folder(run))
    if "nbgrader" in formats and not (course_root or db_url) and not (root / "gradebook.db").is_file():
        from assignments.grading.doors.nbgrader.door import prepare_course

        print(f"nbgrader: this run has no gradebook yet; generating {assignment} in {root}")
        try:
            prepare_course(assignment, root)
        except (OSError, RuntimeError) as error:  # e.g. an assignment without a source folder here
            if strict:
                raise
            _report(problems, f"nbgrader: no gradebook could be made for {assignment} in {root}: {error}")
    db_url = db_url or default_db_url(root)
    graded = results  # the grader's own scores: what goes into the gradebook's auto_score
    try:
        results = merge_hand_grades(results, read_hand_grades(db_url, assignment)) if _exists(db_url) else results
    except Exception as error:  # a damaged gradebook must not stop the other exports
        _report(problems, f"hand grades not read from {db_url}: {error}")
    config = settings(resolve(assignment).course.root)
    excused = list(config.get("excused", {}).get(assignment, [])) + list(excused)
    late_policy = late_policy or adjust.LatePolicy.from_settings(config.get("late_policy"))
    if "canvas" in formats and canvas_options is None:
        canvas_options = canvas.options(resolve(assignment))
    # Who deducts for lateness in Canvas: the command line's choice, else the configuration's.
    canvas_late = (canvas_options.late_policy if canvas_options else None) or adjust.canvas_late_policy(config)
    results = adjust.apply(results, roster, late_policy, excused, canvas_deducts=canvas_late == "canvas")
    warning = canvas.late_policy_warning(results, canvas_late) if "canvas" in formats else None
    if warning:
        print(warning)
    if canvas_late == "canvas" and late_policy.per_day:
        print(
            "late policy: [tool.course.late_policy] is not applied in any export, since Canvas' own Late "
            'Policy deducts ([tool.course.canvas] late_policy = "canvas")'
        )
    job = ExportJob(assignment, results, graded, out, roster, db_url, root, canvas_options)
    written: dict[str, list[Path]] = {}
    deferred = None
    for name in formats:
        if name not in WRITERS:
            raise ValueError(f"unknown export format {name!r}; choose from {', '.join(FORMATS)}")
        try:
            written[name] = WRITERS[name](job)
        except (LookupError, RuntimeError) as error:
            if name != "nbgrader":
                raise
            deferred = error  # the other formats are still written
    if deferred is not None:
        if strict:
            raise deferred
        _report(problems, f"nbgrader export skipped: {deferred}")
    return written


def _sqlite_folder(db_url: str | None) -> Path | None:
    """The folder of a SQLite gradebook named by ``db_url`` (None for no URL or another database)."""
    prefix = "sqlite:///"
    return Path(db_url[len(prefix) :]).parent if db_url and db_url.startswith(prefix) else None


def _exists(db_url: str) -> bool:
    """A SQLite gradebook that is not there yet has no hand grades (and opening it would create it)."""
    return not db_url.startswith("sqlite:///") or Path(db_url[len("sqlite:///") :]).is_file()


def _report(problems: list[str] | None, line: str) -> None:
    if problems is None:
        print(line)
    else:
        problems.append(line)


def print_written(written: dict[str, list[Path]]) -> None:
    for name, paths in written.items():
        folders = sorted({str(p.parent) for p in paths})
        print(f"{name}: {len(paths)} file(s) in {', '.join(folders)}")
