"""Exports from the results model: Gradescope, Canvas CSV, nbgrader gradebook, feedback, class report.

Every exporter reads ``SubmissionResult`` records (``grades/<assignment>/results/<student>.json``,
see ``store``); none re-parses logs or notebooks. Command line:

    course intake ASSIGNMENT INPUT [--dest DIR]            LMS download -> one notebook per student
    course export ASSIGNMENT [--results DIR] [--out DIR] [--formats gradescope,canvas,...]
    course gradescope-zip ASSIGNMENT [--out dist/gradescope/ASSIGNMENT.zip]
"""

from __future__ import annotations

from pathlib import Path

FORMATS = ("gradescope", "canvas", "nbgrader", "feedback", "report")


def export(assignment: str, results_folder: Path | None = None, out: Path | None = None,
           formats=FORMATS, roster_path: Path | None = None, db_url: str | None = None,
           course_root: Path | None = None, strict: bool = True,
           problems: list[str] | None = None) -> dict[str, list[Path]]:
    """Write the chosen exports for ``assignment``; returns format -> files written.

    Hand grades and comments a grader entered in formgrader are read from the gradebook (``db_url``, else
    the one in ``course_root``, else ``nbgrader_gradebook.course_folder``) and merged into every export;
    the gradebook itself only ever receives the grader's automatic scores, so its hand grades stay.
    The roster (LMS names and ids) is ``roster_path``, else ``intake.json`` beside the results folder,
    else ``grades/<assignment>/intake.json``. When the gradebook lacks the assignment, the nbgrader
    format is skipped: with ``strict`` a ``LookupError`` follows once the other formats are written,
    without it the reason goes to ``problems`` (or is printed when no list is given).
    """
    from ..results import store
    from .nbgrader_gradebook import course_folder, default_db_url, merge_hand_grades, read_hand_grades

    results_folder = Path(results_folder) if results_folder else store.results_dir(assignment)
    out = Path(out) if out else store.exports_dir(assignment)
    results = store.load_results(results_folder, assignment)
    if not results:
        raise FileNotFoundError(f"no results for {assignment} in {results_folder}")
    if roster_path is None:
        beside = results_folder.parent / "intake.json"
        roster_path = beside if beside.is_file() else store.intake_manifest(assignment)
    roster = store.load_roster(Path(roster_path))
    root = Path(course_root) if course_root else course_folder(assignment)
    db_url = db_url or default_db_url(root)
    graded = results   # the grader's own scores: what goes into the gradebook's auto_score
    try:
        results = merge_hand_grades(results, read_hand_grades(db_url, assignment)) if _exists(db_url) else results
    except Exception as error:   # a damaged gradebook must not stop the other exports
        _report(problems, f"hand grades not read from {db_url}: {error}")
    written: dict[str, list[Path]] = {}
    deferred = None
    for name in formats:
        if name == "gradescope":
            from .gradescope import write_all

            written[name] = write_all(results, out / "gradescope")
        elif name == "canvas":
            from .canvas import write_canvas_csv

            written[name] = [write_canvas_csv(results, out / "canvas" / f"{assignment}_canvas.csv", assignment,
                                              roster)]
        elif name == "feedback":
            from .feedback import write_feedback

            written[name] = write_feedback(results, out / "feedback")
        elif name == "report":
            from .report import write_report

            written[name] = write_report(results, out / "report", assignment)
        elif name == "nbgrader":
            from .nbgrader_gradebook import nbgrader_export, place_missing_notebooks, write_gradebook

            try:
                report = write_gradebook(graded, assignment, db_url, roster)
                place_missing_notebooks(graded, assignment, root, db_url)
                for problem in report.problems:
                    print(f"nbgrader: {problem}")
                written[name] = [nbgrader_export(root, out / "nbgrader" / "grades.csv", db_url, assignment)]
            except (LookupError, RuntimeError) as error:
                deferred = error
        else:
            raise ValueError(f"unknown export format {name!r}; choose from {', '.join(FORMATS)}")
    if deferred is not None:
        if strict:
            raise deferred
        _report(problems, f"nbgrader export skipped: {deferred}")
    return written


def _exists(db_url: str) -> bool:
    """A SQLite gradebook that is not there yet has no hand grades (and opening it would create it)."""
    return not db_url.startswith("sqlite:///") or Path(db_url[len("sqlite:///"):]).is_file()


def _report(problems: list[str] | None, line: str) -> None:
    if problems is None:
        print(line)
    else:
        problems.append(line)


def print_written(written: dict[str, list[Path]]) -> None:
    for name, paths in written.items():
        folders = sorted({str(p.parent) for p in paths})
        print(f"{name}: {len(paths)} file(s) in {', '.join(folders)}")
