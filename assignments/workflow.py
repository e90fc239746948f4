"""The instructor's jobs end to end: intake → grade → results → exports (the demo runs them: ``demo.run``).

Each job works in one run folder (``runs.folder.Run``), which the command builds once and passes down."""

from __future__ import annotations

from pathlib import Path

from assignments import intake
from assignments.course import Assignment
from assignments.grading.doors import batch
from assignments.results.model import Finding, SubmissionResult, rejected
from assignments.runs.folder import Run, as_run
from assignments.runs.merge import merge_runs
from assignments.runs.regrade import RegradePlan
from assignments.runs.shards import Shard, write_shard


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


def export(
    run: Run,
    assignment: Assignment,
    formats=None,
    *,
    strict: bool = True,
    problems: list[str] | None = None,
    **choices,
) -> dict[str, list[Path]]:
    """``gather_export_job`` then ``exports.write``: the chosen formats of the run's records; returns format ->
    files written. ``choices``: ``gather_export_job``'s keyword arguments (roster, gradebook, Canvas, excused
    questions, late policy); ``strict`` and ``problems`` as for both."""
    from assignments.exports import FORMATS, write

    formats = tuple(formats or FORMATS)
    job = gather_export_job(run, assignment, formats, strict=strict, problems=problems, **choices)
    return write(job, formats, strict, problems)


def gather_export_job(
    run: Run,
    assignment: Assignment,
    formats=None,
    *,
    roster: Path | None = None,
    db_url: str | None = None,
    canvas_options=None,
    canvas_choices: dict | None = None,
    excused: list[str] = (),
    late_policy=None,
    strict: bool = True,
    problems: list[str] | None = None,
):
    """Everything the writers need, read once from the run ``run`` and nowhere else (``exports.ExportJob``).
    ``assignment``: an ``Assignment`` of any course (the toy course in tests).

    The records are ``run.results``; the roster is the run's ``intake.json`` (or ``roster``: an intake
    manifest, or a Canvas gradebook export whose names, SIS ids and sections are added to the intake's); the
    gradebook is the run's nbgrader course folder (``run.course``) unless ``db_url`` names one. When the
    nbgrader format is chosen and the run has no gradebook yet, the assignment is generated into
    ``run.course`` first (with ``strict`` a failure raises, else it goes to ``problems``). Hand grades and
    comments a grader entered in formgrader are merged into the records; the job keeps the grader's own
    records too, since the gradebook only ever receives automatic scores (its hand grades stay). The
    course settings are read once: excused questions (theirs plus ``excused``) and the late policy
    (``late_policy`` replaces the configured one) are applied here, before any writer; when the course's
    penalty is in the Canvas CSV and the instructor has not said whether Canvas' own Late Policy is on, a
    warning says how to choose. ``canvas_options``: the Canvas options as they are, else made from the
    configuration and ``canvas_choices`` (the command line's, ``canvas.options``' arguments)."""
    from assignments.exports import FORMATS, ExportJob, adjust, canvas, report_problem
    from assignments.exports.nbgrader_gradebook import merge_hand_grades, read_hand_grades
    from assignments.runs import store
    from assignments.settings import settings

    formats = tuple(formats or FORMATS)
    course = assignment
    assignment = course.name
    results = store.load_results(run.results, assignment)
    if not results:
        raise FileNotFoundError(f"no results for {assignment} in {run.results}")
    lms = store.load_roster(run.intake)
    gradebook = None
    if roster and Path(roster).suffix.lower() == ".csv":
        # A Canvas gradebook export is Canvas's side of the join, keyed by Canvas user id. It is kept apart
        # from the intake's records (keyed by each platform's own key), so a key of one platform never
        # picks up another's row: canvas.identities joins them, on keys both sides hold.
        gradebook = canvas.read_gradebook_export(Path(roster))
    elif roster:
        lms = store.load_roster(Path(roster))
    if "nbgrader" in formats and db_url is None and not run.gradebook.is_file():
        from assignments.grading.doors.nbgrader.door import prepare_course

        print(f"nbgrader: this run has no gradebook yet; generating {assignment} in {run.course}")
        try:
            prepare_course(course, run.course)
        except (OSError, RuntimeError) as error:  # e.g. an assignment without a source folder here
            if strict:
                raise
            report_problem(problems, f"nbgrader: no gradebook could be made for {assignment} in {run.course}: {error}")
    db_url = db_url or run.db_url
    graded = results  # the grader's own scores: what goes into the gradebook's auto_score
    try:
        if _gradebook_exists(db_url):
            results = merge_hand_grades(results, read_hand_grades(db_url, assignment))
    except Exception as error:  # a damaged gradebook must not stop the other exports
        report_problem(problems, f"hand grades not read from {db_url}: {error}")
    config = settings(course.course.root)
    excused = list(config.get("excused", {}).get(assignment, [])) + list(excused)
    late_policy = late_policy or adjust.LatePolicy.from_settings(config.get("late_policy"))
    if "canvas" in formats and canvas_options is None:
        canvas_options = canvas.options(course, **(canvas_choices or {}), config=config)
    # Who deducts for lateness in Canvas: the command line's choice, else the configuration's.
    canvas_late = (canvas_options.late_policy if canvas_options else None) or adjust.canvas_late_policy(config)
    results = adjust.apply(results, lms, late_policy, excused, canvas_deducts=canvas_late == "canvas")
    if "canvas" in formats:
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
    warning = canvas.late_policy_warning(results, canvas_late) if "canvas" in formats else None
    if warning:
        print(warning)
    if canvas_late == "canvas" and late_policy.per_day:
        print(
            "late policy: [tool.course.late_policy] is not applied in any export, since Canvas' own Late "
            'Policy deducts ([tool.course.canvas] late_policy = "canvas")'
        )
    if gradebook:
        # The names every other export shows (nbgrader's gradebook, the report, feedback) are Canvas's too for
        # the students the join placed; each keeps its own platform's keys, so the Canvas CSV joins the same.
        placed, _ = canvas.identities(results, lms, gradebook)
        lms = {**lms, **{s: {**row, **lms.get(s, {}), "name": row.get("name") or s} for s, row in placed.items()}}
    return ExportJob(assignment, results, graded, run.exports, lms, db_url, run.course, canvas_options, gradebook)


def _gradebook_exists(db_url: str) -> bool:
    """A SQLite gradebook that is not there yet has no hand grades (and opening it would create it)."""
    prefix = "sqlite:///"
    return not db_url.startswith(prefix) or Path(db_url[len(prefix) :]).is_file()
