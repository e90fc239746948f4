"""Standalone results into nbgrader's gradebook, so formgrader and ``nbgrader export`` see them.

The assignment must already be in the gradebook with its grade cells: ``course release`` runs
``nbgrader generate_assignment``, which records them. For each record this module creates the student
and the submission if needed, then sets ``auto_score`` on every autograded test cell (by grade_id).
Written answers keep ``auto_score`` empty and stay "needs manual grade", so graders score them in
formgrader; hand grades (``manual_score``) already in the gradebook are never touched, so exporting
again after a re-grade keeps them. An autograded cell with an error-level finding is also flagged for a
look in formgrader.

``read_hand_grades`` and ``merge_hand_grades`` go the other way: the points and comments a grader
entered in formgrader come back into the records every other export reads.

Formgrader shows a submission's notebook from ``autograded/<student>/<assignment>/<notebook>.ipynb``;
``place_notebook`` writes a notebook there, inert (``inert.inert_notebook``) and with its written answers'
evidence labelled as the nbgrader door labels it. Names from the roster enter the gradebook as text
(``escaping.stored_name``): formgrader prints them in its pages and scripts.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from assignments.course import REPO
from assignments.escaping import csv_cell, stored_name
from assignments.grading.doors.nbgrader import cli as nbgrader_cli
from assignments.results.model import Evidence, SubmissionResult
from assignments.runs.folder import sqlite_path, sqlite_url


@dataclass(frozen=True)
class HandGrade:
    score: float | None  # nbgrader's manual_score: None when the grader gave only a comment
    comment: str


@dataclass
class GradebookReport:
    students: int = 0
    grades_set: int = 0
    problems: list[str] = field(default_factory=list)


def _split_name(name: str) -> tuple[str | None, str | None]:
    """'Jane Doe' -> ('Jane', 'Doe'); commas are dropped (nbgrader's CSV export does not quote)."""
    parts = name.replace(",", " ").split()
    if len(parts) >= 2:
        return " ".join(parts[:-1]), parts[-1]
    return (parts[0], None) if parts else (None, None)


@contextlib.contextmanager
def open_gradebook(db_url: str):
    """nbgrader's Gradebook; a new database is stamped by running ``alembic``, so this interpreter's
    scripts folder goes first on PATH while it opens."""
    from nbgrader.api import Gradebook

    saved = os.environ.get("PATH")
    os.environ["PATH"] = nbgrader_cli.environment()["PATH"]
    try:
        gb = Gradebook(db_url)
    finally:
        if saved is None:
            os.environ.pop("PATH", None)
        else:
            os.environ["PATH"] = saved
    try:
        yield gb
    finally:
        gb.close()


def write_gradebook(
    results: list[SubmissionResult], assignment: str, db_url: str | None = None, roster: dict[str, dict] | None = None
) -> GradebookReport:
    """Record the autograded scores of ``results`` in the gradebook at ``db_url``."""
    from nbgrader.api import MissingEntry

    roster = roster or {}
    report = GradebookReport()
    db_url = db_url or sqlite_url(REPO)
    path = sqlite_path(db_url)
    if path is not None and not path.is_file():
        raise LookupError(f"no gradebook at {db_url}; `course release` (nbgrader generate_assignment) creates it")
    # nbgrader's add_submission trips SQLAlchemy autoflush warnings that say nothing about our data.
    with warnings.catch_warnings(), open_gradebook(db_url) as gb:
        warnings.simplefilter("ignore")
        try:
            record = gb.find_assignment(assignment)
        except MissingEntry:
            raise LookupError(
                f"assignment {assignment!r} is not in the gradebook {db_url};"
                " generate it first (`course release` runs nbgrader generate_assignment)"
            ) from None
        cell_notebook = {}
        for notebook in record.notebooks:
            for cell in notebook.grade_cells:
                cell_notebook[cell.name] = notebook.name
        for result in results:
            if result.assignment != assignment:
                report.problems.append(f"{result.student}: record is for {result.assignment}, skipped")
                continue
            # nbgrader's own CSV export writes these names unquoted: no formula may start one. Formgrader
            # prints them in its pages and scripts: no markup either.
            first, last = (
                csv_cell(stored_name(part)) if part else part
                for part in _split_name(roster.get(result.student, {}).get("name", ""))
            )
            details = {k: v for k, v in (("first_name", first), ("last_name", last)) if v}
            gb.update_or_create_student(result.student, **details)
            gb.update_or_create_submission(assignment, result.student)
            flagged = {f.cell for f in result.findings if f.severity == "error" and f.cell}
            for question in result.questions:
                if question.kind != "autograded":
                    continue
                notebook = cell_notebook.get(question.grade_id)
                if notebook is None:
                    report.problems.append(
                        f"{result.student}: question {question.grade_id} is not a grade "
                        f"cell of {assignment} in the gradebook"
                    )
                    continue
                grade = gb.find_grade(question.grade_id, notebook, assignment, result.student)
                grade.auto_score = float(question.points or 0.0)
                grade.needs_manual_grade = (
                    grade.manual_score is not None or question.grade_id in flagged or result.status == "rejected"
                )
                report.grades_set += 1
            gb.db.commit()
            report.students += 1
    return report


def read_hand_grades(db_url: str, assignment: str) -> dict[str, dict[str, HandGrade]]:
    """student -> grade_id -> what a grader entered in formgrader (manual score and/or comment).

    Empty when the gradebook lacks the assignment. Only the grader's own comments are read
    (``manual_comment``), never nbgrader's automatic ones."""
    from nbgrader.api import MissingEntry

    found: dict[str, dict[str, HandGrade]] = {}
    with warnings.catch_warnings(), open_gradebook(db_url) as gb:
        warnings.simplefilter("ignore")
        try:
            submissions = gb.assignment_submissions(assignment)
        except MissingEntry:
            return found
        for submission in submissions:
            for notebook in submission.notebooks:
                comments = {c.name: (c.manual_comment or "").strip() for c in notebook.comments}
                for grade in notebook.grades:
                    comment = comments.get(grade.name, "")
                    if grade.manual_score is not None or comment:
                        score = None if grade.manual_score is None else float(grade.manual_score)
                        found.setdefault(submission.student.id, {})[grade.name] = HandGrade(score, comment)
    return found


def merge_hand_grades(results: list[SubmissionResult], hand: dict[str, dict[str, HandGrade]]) -> list[SubmissionResult]:
    """Copies of ``results`` with hand grades applied: a manual score sets the question's points (as in
    nbgrader, it replaces an automatic score too) and the comment goes with the question."""
    merged = []
    for result in results:
        copy = SubmissionResult.from_dict(result.to_dict())
        for question in copy.questions:
            entry = hand.get(result.student, {}).get(question.grade_id)
            if entry is None:
                continue
            if entry.score is not None:
                question.points = entry.score
            question.comment = entry.comment
        merged.append(copy)
    return merged


def place_notebook(
    course_root: Path,
    assignment: str,
    student: str,
    notebook: Path,
    notebook_name: str | None = None,
    evidence: list[Evidence] = (),
) -> Path:
    """Write ``notebook`` where formgrader looks for a graded submission: inert, with ``evidence`` (the
    record's) labelled under each written answer and in each evidence cell, as the nbgrader door shows
    it. A notebook that cannot be read is not placed (formgrader then says it has none)."""
    import nbformat

    from assignments.grading.doors.nbgrader.evidence import show_evidence
    from assignments.inert import inert_notebook

    name = notebook_name or assignment
    target = Path(course_root) / "autograded" / student / assignment / f"{name}.ipynb"
    shown = inert_notebook(nbformat.read(notebook, as_version=4))
    show_evidence(shown, list(evidence), rerun=False)
    target.parent.mkdir(parents=True, exist_ok=True)
    # Once more over the evidence cells just added: their text and images come from the record.
    target.write_text(nbformat.writes(inert_notebook(shown)), encoding="utf-8")
    return target


def place_missing_notebooks(
    results: list[SubmissionResult], assignment: str, course_root: Path, db_url: str
) -> list[Path]:
    """Give formgrader a notebook to show for every record that nbgrader never autograded (a standalone
    grade): the student's submitted file, made inert and with its evidence labelled, goes to
    ``autograded/``. A notebook already there (nbgrader's own, or placed before) is kept. Only
    single-notebook assignments, as every one here is."""
    from nbgrader.api import MissingEntry

    with open_gradebook(db_url) as gb:
        try:
            names = [notebook.name for notebook in gb.find_assignment(assignment).notebooks]
        except MissingEntry:
            return []
    if len(names) != 1:
        return []
    placed = []
    for result in results:
        source = Path(result.source_file) if result.source_file else None
        target = Path(course_root) / "autograded" / result.student / assignment / f"{names[0]}.ipynb"
        if source is None or not source.is_file() or target.exists():
            continue
        try:
            placed.append(place_notebook(course_root, assignment, result.student, source, names[0], result.evidence))
        except Exception as error:  # noqa: BLE001 - one unreadable notebook must not stop the class
            print(f"nbgrader: {result.student}'s notebook was not placed for formgrader ({type(error).__name__})")
    return placed


PENDING_COLUMN = "written_pending"  # added to nbgrader's CSV: written answers not graded yet


def report_scores(path: Path, results: list[SubmissionResult], assignment: str) -> Path:
    """Rewrite the CSV ``nbgrader export`` wrote at ``path`` with the course's arithmetic
    (``exports/adjust.py``), so its percentages agree with every other export: for each student of
    ``assignment`` with a record, ``raw_score`` (before lateness), ``late_submission_penalty`` and
    ``score`` on nbgrader's ``max_score`` (the gradebook's points possible, every grade cell's). nbgrader
    itself knows neither excused questions nor the course's late policy. A column of this course's,
    ``written_pending``, says how many written answers of the student no grader has graded yet; while
    any is, ``raw_score``, ``late_submission_penalty`` and ``score`` are left empty (nbgrader would count
    those answers 0: no grade before it is true). Other rows stay as written; every cell is written
    through ``csv_safe`` (a student's name is in it)."""
    import csv

    from assignments.exports import csv_safe
    from assignments.exports.adjust import reported_score

    mine = {r.student: r for r in results if r.assignment == assignment}
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header, rows = reader.fieldnames or [], list(reader)
    for row in rows:
        record = mine.get(row.get("student_id", ""))
        if record is None or row.get("assignment") != assignment:
            continue
        score = reported_score(record, "all", float(row["max_score"]))
        row[PENDING_COLUMN] = str(score.pending)
        if score.pending:
            row["raw_score"] = row["late_submission_penalty"] = row["score"] = ""
            continue
        row["raw_score"] = str(score.before_penalty)
        row["late_submission_penalty"] = str(score.penalty)
        row["score"] = str(score.points)
    if PENDING_COLUMN not in header:
        header = [*header, PENDING_COLUMN]
    return csv_safe.write_records(path, header, rows)


def nbgrader_export(
    course_root: Path, out_csv: Path, db_url: str | None = None, assignment: str | None = None, timeout: float = 300
) -> Path:
    """Run the real ``nbgrader export`` (CSV) in ``course_root``; returns the CSV path."""
    out_csv = Path(out_csv).resolve()
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    command = nbgrader_cli.command("export", f"--to={out_csv}", f"--db={db_url or sqlite_url(course_root)}")
    if assignment:
        command.append(f"--assignment=[{assignment!r}]")
    done = subprocess.run(
        command, cwd=course_root, env=nbgrader_cli.environment(), capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0 or not out_csv.is_file():
        raise RuntimeError(f"nbgrader export failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return out_csv
