"""Exports from the results model: a Gradescope preview, Canvas CSV, nbgrader gradebook, feedback, class report.

Every exporter reads ``SubmissionResult`` records (a run's ``results/<student>.json``, see
``runs/store.py``); none re-parses logs or notebooks. Each format is one writer in ``WRITERS`` (an
``ExportJob`` in, the files written out); a new format is one function and one entry there. The job is
gathered by ``workflow.gather_export_job`` (records, roster, hand grades, the course's decisions);
``write`` runs the writers; ``course export`` (in ``cli/export.py``) does both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assignments.runs.folder import sqlite_path
from assignments.settings import setting


@dataclass(frozen=True)
class ExportJob:
    """What every writer receives: the records with hand grades merged in and the course's decisions (excused
    questions, late policy) applied, the grader's own records (what goes into the gradebook's automatic
    scores), and where things are. Writers only write: everything is read before (``workflow``)."""

    assignment: str
    results: list  # SubmissionResult, hand grades from the gradebook merged in
    graded: list  # SubmissionResult as the grader wrote them
    out: Path  # the exports folder; each writer writes under out/<format>/
    roster: dict  # student key -> LMS names and ids
    db_url: str  # the nbgrader gradebook
    course_root: Path  # the nbgrader course folder holding that gradebook
    canvas: object = None  # canvas.CanvasOptions: the Canvas assignment and how ungraded answers count
    canvas_gradebook: dict | None = None  # a Canvas gradebook export: Canvas user id -> Canvas's own row
    # The course's gradescope_test_visibility (checked only when the Gradescope preview is asked for).
    gradescope_visibility: str = setting("gradescope_test_visibility").default


def _gradescope_preview(job: ExportJob) -> list[Path]:
    """Each student's results.json as Gradescope would show it: a preview for staff. Gradescope cannot
    import it (its scores come only from run_autograder in its own container; ``course gradescope-zip``)."""
    from assignments.exports.gradescope import write_all

    return write_all(job.results, job.out / GRADESCOPE_PREVIEW, job.gradescope_visibility)


def _canvas(job: ExportJob) -> list[Path]:
    from assignments.exports.canvas import write_canvas_csv

    path = job.out / "canvas" / f"{job.assignment}_canvas.csv"
    return [write_canvas_csv(job.results, path, job.canvas, job.roster, gradebook=job.canvas_gradebook)]


def _nbgrader(job: ExportJob) -> list[Path]:
    """Raises LookupError or RuntimeError when the gradebook does not know the assignment."""
    from assignments.exports.nbgrader_gradebook import (
        nbgrader_export,
        place_missing_notebooks,
        report_scores,
        write_gradebook,
    )

    report = write_gradebook(job.graded, job.assignment, job.db_url, job.roster)
    place_missing_notebooks(job.graded, job.assignment, job.course_root, job.db_url)
    for problem in report.problems:
        print(f"nbgrader: {problem}")
    # nbgrader writes its CSV itself; the course's arithmetic replaces its scores and the file is written
    # again through csv_safe (every cell neutralised and quoted).
    written = nbgrader_export(job.course_root, job.out / "nbgrader" / "grades.csv", job.db_url, job.assignment)
    return [report_scores(written, job.results, job.assignment)]


def _feedback(job: ExportJob) -> list[Path]:
    from assignments.exports.feedback import write_feedback

    return write_feedback(job.results, job.out / "feedback", roster=job.roster)


def _report_writer(job: ExportJob) -> list[Path]:
    from assignments.exports.report import write_report

    return write_report(job.results, job.out / "report", job.assignment)


GRADESCOPE_PREVIEW = "gradescope-preview"  # the format's name and its folder: a preview, not an import file
# The registry: format name -> writer, in the order ``course export`` runs them by default.
WRITERS: dict[str, Callable[[ExportJob], list[Path]]] = {
    GRADESCOPE_PREVIEW: _gradescope_preview,
    "canvas": _canvas,
    "nbgrader": _nbgrader,
    "feedback": _feedback,
    "report": _report_writer,
}
FORMATS = tuple(WRITERS)
# What a format's files are for, where its name alone could mislead (printed with what was written).
NOTES = {
    GRADESCOPE_PREVIEW: "what each student would see on Gradescope; a preview that Gradescope cannot import "
    "(Gradescope scores through the autograder zip, `course gradescope-zip`)",
}


def write(
    job: ExportJob, formats=FORMATS, strict: bool = True, problems: list[str] | None = None
) -> dict[str, list[Path]]:
    """Write the chosen formats of ``job``; returns format -> files written. Nothing is read here but the job
    (``workflow.gather_export_job`` gathers it). When the gradebook lacks the assignment, the nbgrader format
    is skipped: with ``strict`` a ``LookupError`` follows once the other formats are written, without it the
    reason goes to ``problems`` (or is printed when no list is given)."""
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
        report_problem(problems, f"nbgrader export skipped: {deferred}")
    return written


def sqlite_folder(db_url: str | None) -> Path | None:
    """The folder of a SQLite gradebook named by ``db_url`` (None for no URL or another database)."""
    path = sqlite_path(db_url)
    return path.parent if path else None


def report_problem(problems: list[str] | None, line: str) -> None:
    """``line`` into ``problems``, or printed when there is no list."""
    if problems is None:
        print(line)
    else:
        problems.append(line)


def print_written(written: dict[str, list[Path]]) -> None:
    for name, paths in written.items():
        folders = sorted({str(p.parent) for p in paths})
        note = f" ({NOTES[name]})" if name in NOTES else ""
        print(f"{name}: {len(paths)} file(s) in {', '.join(folders)}{note}")
