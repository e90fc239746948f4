"""The instructor's jobs end to end: intake → grade → results → exports (the demo runs them: ``demo.run``).

Each job works in one run folder (``runs.folder.Run``), which the command builds once and passes down."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from assignments import intake
from assignments.course import Assignment
from assignments.grading.doors import batch
from assignments.results.model import Finding, SubmissionResult, rejected
from assignments.runs.folder import Run, as_run, sqlite_path
from assignments.runs.merge import merge_runs
from assignments.runs.regrade import RegradePlan
from assignments.runs.shards import Shard, write_shard
from assignments.settings import LatePolicy

if TYPE_CHECKING:
    from assignments.exports.canvas import CanvasOptions


def collect(
    assignment: str, source: Path, out: Run | Path, layout: str = "auto"
) -> tuple[list[batch.Job], intake.IntakeResult]:
    """Read an LMS download into one grading job per student of the run ``out``, and keep the intake manifest.
    ``layout``: how the instructor says the download is read (``intake.LAYOUTS``)."""
    run = as_run(out)
    found = intake.collect(Path(source), assignment, run.submissions, layout=layout)
    manifest = run.intake
    # A regrade of some students joins this run's roster: the others keep their names, ids and findings.
    roster = found.merged_into(intake.IntakeResult.load(manifest)) if manifest.is_file() else found
    roster.save(manifest)
    print(found.summary())
    # Every student's kernel has the whole class's submissions and results hidden, wherever --out points.
    hide = (str(Path(source).resolve()), str(run.root.resolve()))
    jobs = [batch.Job(s.student, s.path, hide=hide) for s in sorted(found.submissions, key=lambda s: s.student)]
    return jobs, found


def missing_records(assignment: Assignment, found: intake.IntakeResult, door: str) -> list[SubmissionResult]:
    """A rejected record for each student the intake found no notebook for."""
    return [
        rejected(
            missing.student,
            assignment,
            door,
            Finding(
                "missing-notebook",
                f"no notebook for this assignment was found among the files this student submitted "
                f"({missing.original_name}); autograded questions score 0",
                "error",
            ),
        )
        for missing in found.missing
    ]


def attach_intake(
    assignment: Assignment,
    results: list[SubmissionResult],
    found: intake.IntakeResult,
    out: Run | Path,
    door: str = "standalone",
) -> list[SubmissionResult]:
    """Put each student's intake findings into their record, add the missing students' records, and write
    every record (for a door that has not written them yet: each record is written once)."""
    notes = found.findings_by_student()
    for result in results:
        result.findings += notes.get(result.student, [])
    results = results + missing_records(assignment, found, door)
    for result in results:
        batch.save(result, out)
    return sorted(results, key=lambda r: r.student)


def grade_class(
    assignment: Assignment,
    source: Path,
    out: Run | Path,
    workers: int | None = None,
    shard: Shard | None = None,
    grader=batch.grade_one,
    layout: str = "auto",
) -> list[SubmissionResult]:
    """Grade a class (``shard``: only its slice) into the run ``out`` (``grade_jobs``; ``grader`` as there;
    ``layout``: how the download is read, as ``collect``)."""
    out = as_run(out)
    jobs, found = collect(assignment.name, source, out, layout)
    write_shard(out, shard)  # what `course merge` checks each of the run's records against
    missing = missing_records(assignment, found, "standalone")
    if shard is not None:
        jobs = [job for job in jobs if shard.owns(job.student)]
        missing = [record for record in missing if shard.owns(record.student)]
        print(f"shard {shard}: {len(jobs)} of the class's notebooks, {len(missing)} student(s) without one")
    return grade_jobs(assignment, jobs, out, workers, found.findings_by_student(), missing, grader)


def grade_jobs(
    assignment: Assignment,
    jobs: list[batch.Job],
    out: Run | Path,
    workers: int | None = None,
    findings: dict[str, list[Finding]] | None = None,
    missing: list[SubmissionResult] = (),
    grader=batch.grade_one,
) -> list[SubmissionResult]:
    """Grade ``jobs`` into the run ``out`` and write ``missing`` (records of students without a notebook).
    A record the run already holds is kept when it was graded from the same bytes by the same grader (a
    stopped batch resumes: ``runs.regrade.RegradePlan``); every other student is graded (``grader``:
    ``batch.grade_batch``'s), and whose scores moved is printed and kept in the run's ``regrade.json``."""
    out = as_run(out)
    plan = RegradePlan.of(out, assignment, jobs, findings)
    if plan.kept:
        print(f"kept {len(plan.kept)} record(s) graded from the same notebook by this grader ({plan.version})")
    for record in plan.kept:
        batch.save(record, out)
    if plan.todo:  # the sizing rule's estimate (assignments/sizing.py), one line
        from assignments import sizing

        print(sizing.batch_line(len(plan.todo), workers or batch.default_workers()), flush=True)
    # The batch writes each record as it finishes (a crash loses nothing), with its intake findings already in.
    # The Assignment itself goes to the grader processes, so a class of any course (the toy's) is graded.
    results = batch.grade_batch(
        assignment, plan.todo, out, workers=workers, findings=findings, grader=grader, grader_version=plan.version
    )
    for record in missing:
        record.grader_version = plan.version
        batch.save(record, out)
    for line in plan.finish(results, missing):
        print(line)
    return sorted(plan.kept + results + list(missing), key=lambda r: r.student)


def autograde_class(
    assignment: Assignment,
    source: Path,
    out: Run | Path,
    timeout: float | None = None,
    cross_check: bool = True,
    workers: int | None = None,
    layout: str = "auto",
) -> list[SubmissionResult]:
    """``course autograde``: the nbgrader door over a class (each notebook repaired first, real ``nbgrader
    autograde`` per student, read back from its gradebook) into the run ``out``, then, with ``cross_check``, a
    second opinion from the standalone door on every question of the notebooks as sent."""
    from assignments.grading.doors.nbgrader import door as nbgrader_door
    from assignments.results import table

    run = as_run(out)
    name = assignment.name
    jobs, found = collect(name, Path(source), run, layout)
    submissions = {job.student: Path(job.path) for job in jobs}
    results = nbgrader_door.autograde_repaired(
        assignment, submissions, run, timeout=timeout or nbgrader_door.NOTEBOOK_TIMEOUT_S
    )
    disagreements = (
        nbgrader_door.cross_check(assignment, results, submissions, run.standalone, workers=workers)
        if cross_check
        else []
    )
    results = attach_intake(assignment, results, found, run, door="nbgrader")
    print(table.score_table(results, f"{name}: nbgrader autograde"))
    if cross_check:
        print(
            "the standalone door agrees on every question"
            if not disagreements
            else "DOORS DISAGREE (the standalone door is the trusted one):\n  " + "\n  ".join(disagreements)
        )
    print(f"results: {run.results}\nnbgrader course folder: {run.course}")
    return results


def repair_for_nbgrader(assignment: Assignment, source: Path, out: Path, layout: str = "auto") -> list:
    """``course repair``: the download read into ``out`` (as ``collect``) and each notebook repaired so that plain
    ``nbgrader autograde`` grades it (``repair.repair_class``: copies in ``out/submitted/``, its report beside
    them); returns the repairs."""
    # Lazy: the repair machinery builds its pattern tables at import, about 60 ms of every `course --help`.
    from assignments.grading.doors.nbgrader import repair

    jobs, _ = collect(assignment.name, Path(source), Run(out), layout)
    return repair.repair_class(assignment, {job.student: Path(job.path) for job in jobs}, out)


def merge(
    assignment: Assignment, runs: list[Run | Path], out: Run | Path, allow_missing: bool = False
) -> list[SubmissionResult]:
    """The shards' runs joined into the run ``out`` (``runs.merge.merge_runs``, which checks them against the
    intake and refuses an incomplete class unless ``allow_missing``), then every export from it."""
    run = as_run(out)
    merged = merge_runs(assignment.name, runs, run, allow_missing=allow_missing)
    export_all(assignment, run)
    return merged


def export_all(assignment: Assignment, run: Run | Path) -> None:
    """Every export of the run (its own gradebook: ``Run.course``), a problem with one format printed."""
    from assignments.exports import FORMATS, print_written

    print_written(export(as_run(run), assignment, FORMATS, strict=False))


@dataclass(frozen=True)
class ExportOptions:
    """What the command line adds to the course's settings for one export (``gather_export_job``)."""

    #: An intake manifest that replaces the run's, or a Canvas gradebook export (.csv) whose names, SIS ids and
    #: sections join the intake's records; None: the run's ``intake.json`` alone.
    roster: Path | None = None
    #: The nbgrader gradebook; None: the run's own (``Run.db_url``).
    db_url: str | None = None
    #: The Canvas options as they are; None: made from the settings and ``canvas_choices``.
    canvas_options: CanvasOptions | None = None
    #: ``canvas.options``' arguments (the command line's), over the settings' ``[tool.course.canvas]``.
    canvas_choices: dict | None = None
    #: Excused questions besides the settings' (``adjust.parse_excused``'s entries).
    excused: tuple[str, ...] = ()
    #: A late policy in place of the settings'.
    late_policy: LatePolicy | None = None
    #: A gradebook that cannot be made raises; otherwise the reason goes to the caller's problems.
    strict: bool = True


def export(
    run: Run, assignment: Assignment, formats=None, *, problems: list[str] | None = None, **choices
) -> dict[str, list[Path]]:
    """``gather_export_job`` then ``exports.write``: the chosen formats of the run's records; returns format ->
    files written. ``choices``: ``ExportOptions``' fields (roster, gradebook, Canvas, excused questions, late
    policy, strict); ``problems`` as for both."""
    from assignments.exports import FORMATS, write

    formats = tuple(formats or FORMATS)
    options = ExportOptions(**choices)
    job = gather_export_job(run, assignment, formats, options, problems)
    return write(job, formats, options.strict, problems)


def gather_export_job(
    run: Run,
    assignment: Assignment,
    formats=None,
    options: ExportOptions | None = None,
    problems: list[str] | None = None,
):
    """Everything the writers need (``exports.ExportJob``), read once: the records from the run ``run``, the
    course's decisions from its settings (``assignment.course.settings``), and what the command line adds
    (``options``). ``assignment``: an ``Assignment`` of any course (the toy course in tests).

    The records are ``run.results``; the roster is the run's ``intake.json`` (or ``options.roster``, see
    ``ExportOptions``); the gradebook is the run's nbgrader course folder (``run.course``) unless
    ``options.db_url`` names one (``_gradebook_url``). Hand grades and comments a grader entered in
    formgrader are merged into the records; the job keeps the grader's own records too, since the gradebook
    only ever receives automatic scores (its hand grades stay). Excused questions (the settings' plus the
    options') and the late policy (the options', else the settings') are applied here, before any writer;
    when the course's penalty is in the Canvas CSV and the instructor has not said whether Canvas' own Late
    Policy is on, a warning says how to choose. Problems that leave the export possible go to ``problems``."""
    from assignments.exports import FORMATS, GRADESCOPE_PREVIEW, ExportJob, adjust, canvas

    formats = tuple(formats or FORMATS)
    options = options or ExportOptions()
    settings = assignment.course.settings
    name = assignment.name
    graded = _records(run, name)  # the grader's own scores: what goes into the gradebook's auto_score
    lms, gradebook = _rosters(run, options.roster)
    db_url = _gradebook_url(run, assignment, formats, options, problems)
    results = _with_hand_grades(graded, db_url, name, problems)
    excused = [*settings.excused(name), *options.excused]
    late_policy = options.late_policy or settings.late_policy
    canvas_options = options.canvas_options
    if "canvas" in formats and canvas_options is None:
        canvas_options = canvas.options(assignment, **(options.canvas_choices or {}))
    # Who deducts for lateness in Canvas: the command line's choice, else the settings'.
    canvas_late = (canvas_options.late_policy if canvas_options else None) or settings.canvas.late_policy
    results = adjust.apply(results, lms, late_policy, excused, canvas_deducts=canvas_late == "canvas")
    if "canvas" in formats:
        _place_in_canvas(results, lms, gradebook)
        warning = canvas.late_policy_warning(results, canvas_late)
        if warning:
            print(warning)
    if canvas_late == "canvas" and late_policy.per_day:
        print(
            "late policy: [tool.course.late_policy] is not applied in any export, since Canvas' own Late "
            'Policy deducts ([tool.course.canvas] late_policy = "canvas")'
        )
    if gradebook:
        lms = _canvas_names(results, lms, gradebook)
    job = ExportJob(name, results, graded, run.exports, lms, db_url, run.course, canvas_options, gradebook)
    if GRADESCOPE_PREVIEW in formats:
        job = replace(job, gradescope_visibility=settings.gradescope_test_visibility)
    return job


def _records(run: Run, assignment: str) -> list[SubmissionResult]:
    """The run's records of ``assignment``; FileNotFoundError where it has none."""
    from assignments.runs import store

    results = store.load_results(run.results, assignment)
    if not results:
        raise FileNotFoundError(f"no results for {assignment} in {run.results}")
    return results


def _rosters(run: Run, roster: Path | None) -> tuple[dict, dict | None]:
    """(the intake's records: student key -> LMS names and ids, a Canvas gradebook export or None): the run's
    intake manifest, or ``roster`` in its place when it is a manifest, or beside it when it is a CSV."""
    from assignments.exports import canvas
    from assignments.runs import store

    intake = store.load_roster(run.intake)
    if roster and Path(roster).suffix.lower() == ".csv":
        # A Canvas gradebook export is Canvas's side of the join, keyed by Canvas user id. It is kept apart
        # from the intake's records (keyed by each platform's own key), so a key of one platform never
        # picks up another's row: canvas.identities joins them, on keys both sides hold.
        return intake, canvas.read_gradebook_export(Path(roster))
    return (store.load_roster(Path(roster)) if roster else intake), None


def _gradebook_url(run: Run, assignment: Assignment, formats, options: ExportOptions, problems) -> str:
    """The gradebook's URL: ``options.db_url``, else the run's. When the nbgrader format is chosen and the run
    has no gradebook yet, the assignment is generated into ``run.course`` first (with ``options.strict`` a
    failure raises, else it goes to ``problems``)."""
    from assignments.exports import report_problem

    if "nbgrader" in formats and options.db_url is None and not run.gradebook.is_file():
        from assignments.grading.doors.nbgrader.door import prepare_course

        print(f"nbgrader: this run has no gradebook yet; generating {assignment.name} in {run.course}")
        try:
            prepare_course(assignment, run.course)
        except (OSError, RuntimeError) as error:  # e.g. an assignment without a source folder here
            if options.strict:
                raise
            report_problem(
                problems, f"nbgrader: no gradebook could be made for {assignment.name} in {run.course}: {error}"
            )
    return options.db_url or run.db_url


def _with_hand_grades(results: list[SubmissionResult], db_url: str, assignment: str, problems) -> list:
    """``results`` with the hand grades of the gradebook at ``db_url`` merged in (a gradebook that is not
    there yet has none; a damaged one goes to ``problems`` and must not stop the other exports)."""
    from assignments.exports import report_problem
    from assignments.exports.nbgrader_gradebook import merge_hand_grades, read_hand_grades

    try:
        path = sqlite_path(db_url)
        if path is None or path.is_file():  # opening a SQLite gradebook that is not there would create it
            return merge_hand_grades(results, read_hand_grades(db_url, assignment))
    except Exception as error:  # a damaged gradebook must not stop the other exports
        report_problem(problems, f"hand grades not read from {db_url}: {error}")
    return results


def _place_in_canvas(results: list[SubmissionResult], lms: dict, gradebook: dict | None) -> None:
    """Join each record to its Canvas row (``canvas.identities``): a refused join is a finding in the record;
    a joined student's roster entry takes the name Canvas knows them by."""
    from assignments.exports import canvas

    placed, refused = canvas.identities(results, lms, gradebook)
    for result in results:
        if result.student in refused:
            result.findings.append(Finding("canvas-identity", refused[result.student], "error"))
        elif result.student in placed and gradebook:
            # The name Canvas knows a joined student by, for the feedback and the gradebook too; the
            # record's own keys stay as its platform gave them (a record without one is keyed by its
            # Canvas user id: that is how it was placed).
            row = placed[result.student]
            own = lms.get(result.student) or {**row, "lms": "canvas"}
            lms[result.student] = {**own, "name": row["name"]}


def _canvas_names(results: list[SubmissionResult], lms: dict, gradebook: dict) -> dict:
    """The roster with Canvas's names for the students the join placed: the names every other export shows
    (nbgrader's gradebook, the report, feedback); each keeps its own platform's keys, so the Canvas CSV joins
    the same."""
    from assignments.exports import canvas

    placed, _ = canvas.identities(results, lms, gradebook)
    return {**lms, **{s: {**row, **lms.get(s, {}), "name": row.get("name") or s} for s, row in placed.items()}}
