"""The instructor's jobs end to end: intake → grade → results → exports (the demo runs them: ``demo.run``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from assignments.grading.doors import batch

from . import batches, intake
from .course import Assignment, resolve
from .results.model import Finding, SubmissionResult, rejected


def collect(assignment: str, source: Path, out: Path) -> tuple[list[batch.Job], intake.IntakeResult]:
    """Read an LMS download into one grading job per student, and keep the intake manifest."""
    found = intake.collect(Path(source), assignment, Path(out) / "submissions")
    manifest = Path(out) / "intake.json"
    # A regrade of some students joins this run's roster: the others keep their names, ids and findings.
    roster = found.merged_into(intake.IntakeResult.load(manifest)) if manifest.is_file() else found
    roster.save(manifest)
    print(found.summary())
    # Every student's kernel has the whole class's submissions and results hidden, wherever --out points.
    hide = (str(Path(source).resolve()), str(Path(out).resolve()))
    jobs = [batch.Job(s.student, s.path, hide=hide) for s in sorted(found.submissions, key=lambda s: s.student)]
    return jobs, found


def intake_findings(found: intake.IntakeResult) -> dict[str, list[Finding]]:
    """student -> the intake's findings about them (late, duplicates), as results findings."""
    by_student: dict[str, list[Finding]] = {}
    for finding in found.findings:
        if finding.student:
            by_student.setdefault(finding.student, []).append(
                Finding(f"intake-{finding.code}", finding.message, finding.severity)
            )
    return by_student


def missing_records(found: intake.IntakeResult, door: str) -> list[SubmissionResult]:
    """A rejected record for each student the intake found no notebook for."""
    return [
        rejected(
            missing.student,
            found.assignment,
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
    results: list[SubmissionResult], found: intake.IntakeResult, out: Path, door: str = "standalone"
) -> list[SubmissionResult]:
    """Put each student's intake findings into their record, add the missing students' records, and write
    every record (for a door that has not written them yet: each record is written once)."""
    notes = intake_findings(found)
    for result in results:
        result.findings += notes.get(result.student, [])
    results = results + missing_records(found, door)
    for result in results:
        batch.save(result, out)
    return sorted(results, key=lambda r: r.student)


def grade_class(
    assignment: Assignment | str,
    source: Path,
    out: Path,
    workers: int | None = None,
    shard: batches.Shard | None = None,
    grader=batch.grade_one,
) -> list[SubmissionResult]:
    """Grade a class (``shard``: only its slice) into the run ``out`` (``grade_jobs``; ``grader`` as there)."""
    assignment = resolve(assignment)
    jobs, found = collect(assignment.name, source, out)
    missing = missing_records(found, "standalone")
    if shard is not None:
        jobs = [job for job in jobs if shard.owns(job.student)]
        missing = [record for record in missing if shard.owns(record.student)]
        print(f"shard {shard}: {len(jobs)} of the class's notebooks, {len(missing)} student(s) without one")
    return grade_jobs(assignment, jobs, out, workers, intake_findings(found), missing, grader)


def grade_jobs(
    assignment: Assignment | str,
    jobs: list[batch.Job],
    out: Path,
    workers: int | None = None,
    findings: dict[str, list[Finding]] | None = None,
    missing: list[SubmissionResult] = (),
    grader=batch.grade_one,
) -> list[SubmissionResult]:
    """Grade ``jobs`` into the run ``out`` and write ``missing`` (records of students without a notebook).
    A record the run already holds is kept when it was graded from the same bytes by the same grader (a
    stopped batch resumes); every other student is graded (``grader``: ``batch.grade_batch``'s), and whose
    scores that moved is printed and kept in the run's ``regrade.json`` (``batches.py``)."""
    assignment = resolve(assignment)
    version = batches.grader_version(assignment)
    earlier = batches.earlier_records(out, assignment.name)
    findings = findings or {}
    kept, todo = [], []
    for job in jobs:
        job = replace(job, sha256=batches.submission_digest(Path(job.path)))
        if batches.still_valid(earlier.get(job.student), job.sha256, version):
            kept.append(batches.with_intake_findings(earlier[job.student], findings.get(job.student, [])))
        else:
            todo.append(job)
    if kept:
        print(f"kept {len(kept)} record(s) graded from the same notebook by this grader ({version})")
    for record in kept:
        batch.save(record, out)
    # The batch writes each record as it finishes (a crash loses nothing), with its intake findings already in.
    results = batch.grade_batch(
        assignment.name, todo, out, workers=workers, findings=findings, grader=grader, grader_version=version
    )
    for record in missing:
        record.grader_version = version
        batch.save(record, out)
    regraded = results + list(missing)
    moved = batches.changes(earlier, regraded)
    batches.write_regrade_report(out, version, len(results), len(kept), moved)
    again = sum(1 for record in results if record.student in earlier)
    if again or moved:
        print(f"graded again: {again} student(s) with an earlier record; scores moved for {len(moved)}")
        print("\n".join(batches.report_lines(moved)))
    return sorted(kept + regraded, key=lambda r: r.student)


def merge(assignment: str, runs: list[Path], out: Path) -> list[SubmissionResult]:
    """The shards' runs joined into the run ``out`` (``batches.merge_runs``), then every export from it."""
    merged = batches.merge_runs(assignment, [Path(run) for run in runs], Path(out))
    export_all(assignment, out)
    return merged


def export_all(assignment: str, out: Path, course_root: Path | None = None) -> None:
    """Every export from the stored results. ``course_root``: an nbgrader course folder whose gradebook
    already knows the assignment (by default the repository's own gradebook.db)."""
    from .exports import FORMATS, export, print_written

    db_url = f"sqlite:///{Path(course_root) / 'gradebook.db'}" if course_root else None
    print_written(
        export(
            assignment,
            Path(out) / "results",
            Path(out) / "exports",
            FORMATS,
            db_url=db_url,
            course_root=course_root,
            strict=False,
        )
    )
