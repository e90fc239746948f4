"""Which students' feedback may go out, under which name, and the release itself (``course feedback``).

A page goes out only when its grade is true: a record with written answers not graded yet is held back
unless the instructor says otherwise (``include_ungraded``: the page then says "not graded yet" for each of
them and "pending" for the score, never a 0 for them; the record keeps the points "so far"), and a record the grader had a problem with is
always held. Who a page goes to is the LMS's own key from the run's intake manifest; a record with no entry
there, or two records claiming one LMS key or one file name, are held, each with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from assignments.delivery import archive, canvas_reupload, moodle_zip, record
from assignments.exports.adjust import reported_score
from assignments.exports.feedback import feedback_html
from assignments.points import points_text
from assignments.results.findings import INTERNAL_CODES
from assignments.results.model import SubmissionResult
from assignments.runs.folder import Run
from assignments.runs.manifest import IntakeResult, Submission

ZIP_LMS = ("canvas", "moodle")
LMS_CHOICES = (*ZIP_LMS, "gradescope", "prairielearn")
# Where feedback already goes on the platforms that grade it themselves.
ELSEWHERE = {
    "gradescope": "Gradescope shows each student the results.json its autograder wrote (every hidden test's name, "
    "points and message, as [tool.course] gradescope_test_visibility allows) once you publish the grades there; "
    "written answers are graded on Gradescope itself. Nothing to upload from here.",
    "prairielearn": "PrairieLearn shows each student the results.json its external grader wrote (each test's points "
    "and message) when the grading job ends. Nothing to upload from here.",
}
VIA = {"canvas": "canvas-reupload-zip", "moodle": "moodle-feedback-zip"}


@dataclass(frozen=True)
class Page:
    """One student's feedback page, named for where it goes."""

    student: str
    file: str  # its name in the zip (or the file name an API comment carries)
    data: bytes
    lms_key: dict  # the LMS's own ids of the student (and of the file Canvas attaches the comment to)
    score: str
    written_pending: bool

    @property
    def sha256(self) -> str:
        return record.sha256(self.data)


@dataclass(frozen=True)
class Held:
    student: str
    why: str


@dataclass
class Release:
    """What one ``release_zip`` did."""

    pages: list[Page] = field(default_factory=list)  # in the zip, and in the record
    held: list[Held] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)  # left out: the same page went out before (changed_only)
    archive: Path | None = None
    record: Path | None = None


def held_reason(result: SubmissionResult, include_ungraded: bool = False) -> str | None:
    """Why ``result``'s feedback must not go out yet (None: it may)."""
    internal = sorted({f.code for f in result.findings if f.code in INTERNAL_CODES})
    if internal:
        return f"the grader had a problem with this record ({', '.join(internal)}); grade it again first"
    pending = [q for q in result.questions if q.kind == "manual" and q.points is None and not q.excused]
    # A rejected record has nothing a person could grade (no readable notebook): its page says why, now.
    if pending and not include_ungraded and result.status != "rejected":
        return (
            f"{len(pending)} written answer(s) not graded yet; grade them (course formgrader), or pass "
            "--include-ungraded to send a page that says they are not graded yet"
        )
    return None


def _score(result: SubmissionResult) -> tuple[str, bool]:
    score = reported_score(result)
    return f"{points_text(score.points)} / {points_text(score.max_points)}" + (
        " so far" if score.ungraded else ""
    ), score.ungraded


def _name_and_key(submission: Submission, lms: str, assignment: str, api: bool) -> tuple[str, dict]:
    """(file name, LMS key) of a student's page; ValueError with the reason it cannot go out."""
    if lms == "canvas":
        if api:  # a comment posted to the user's submission: no attachment needed, any file name
            problem = canvas_reupload.user_problem(submission)
            if problem:
                raise ValueError(problem)
            return f"{assignment}_feedback.html", {"canvas_user_id": str(submission.user_id)}
        name = canvas_reupload.reupload_name(submission, assignment)
        return name, {"canvas_user_id": str(submission.user_id), "canvas_attachment_id": str(submission.submission_id)}
    path = moodle_zip.feedback_path(submission, assignment)
    return path, {"moodle_participant_id": str(submission.user_id)}


def plan(
    results: list[SubmissionResult],
    roster: dict[str, dict],
    intake: IntakeResult,
    lms: str,
    *,
    include_ungraded: bool = False,
    api: bool = False,
) -> tuple[list[Page], list[Held]]:
    """Each record's page, named for ``lms``, or the reason it is held. ``roster``: names shown on the pages."""
    manifest = {s.student: s for s in intake.submissions + intake.missing}
    pages, held = [], []
    for result in sorted(results, key=lambda r: r.student):
        submission = manifest.get(result.student)
        if submission is None:
            held.append(Held(result.student, "not in the run's intake manifest: no LMS name says whose it is"))
            continue
        why = held_reason(result, include_ungraded)
        if why is None:
            try:
                name, key = _name_and_key(submission, lms, result.assignment, api)
            except ValueError as error:
                why = str(error)
        if why is not None:
            held.append(Held(result.student, why))
            continue
        score, pending = _score(result)
        page = feedback_html(result, name=(roster.get(result.student) or {}).get("name", ""))
        pages.append(Page(result.student, name, page.encode("utf-8"), key, score, pending))
    graded = {r.student for r in results}
    held += [
        Held(s.student, "no results record in this run: not graded, so no feedback")
        for s in sorted(manifest.values(), key=lambda s: s.student)
        if s.student not in graded
    ]
    return _apart(pages, held, api)


def _apart(pages: list[Page], held: list[Held], api: bool) -> tuple[list[Page], list[Held]]:
    """Hold every page that shares its LMS key or (in a zip) its file name with another student's: one student's
    feedback must never reach another."""
    claims: dict[str, list[Page]] = {}
    for page in pages:
        # The person: their LMS id alone (two attachments of one Canvas user are still one person).
        person = page.lms_key.get("canvas_user_id") or page.lms_key.get("moodle_participant_id")
        for claim in [f"person {person}"] + ([] if api else [f"file {archive.folded(page.file)}"]):
            claims.setdefault(claim, []).append(page)
    clashing = {p.student: others for others in claims.values() if len(others) > 1 for p in others}
    kept = [p for p in pages if p.student not in clashing]
    held += [
        Held(
            student,
            "shares its LMS key or file name with "
            + ", ".join(sorted(o.student for o in others if o.student != student))
            + "; neither gets this page: check who is who in intake.json",
        )
        for student, others in sorted(clashing.items())
    ]
    return kept, sorted(held, key=lambda h: h.student)


def now_utc() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def record_entry(run: Run, assignment: str, lms: str, via: str, delivered: list[dict], held: list[Held]) -> dict:
    digest, each = record.results_digest(run)
    for item in delivered:
        item["record_sha256"] = each.get(item["student"], "")
    return {
        "released_at": now_utc(),
        "lms": lms,
        "via": via,
        "assignment": assignment,
        "run": str(run.root),
        "results_digest": digest,
        "delivered": delivered,
        "held": [{"student": h.student, "why": h.why} for h in held],
    }


def delivered_item(page: Page) -> dict:
    return {
        "student": page.student,
        "lms_key": page.lms_key,
        "file": page.file,
        "sha256": page.sha256,
        "bytes": len(page.data),
        "score": page.score,
        "written_pending": page.written_pending,
    }


def zip_path(run: Run, assignment: str, lms: str) -> Path:
    return run.feedback / lms / f"{assignment}_feedback_{lms}.zip"


def release_zip(
    run: Run,
    assignment: str,
    results: list[SubmissionResult],
    roster: dict[str, dict],
    intake: IntakeResult,
    lms: str,
    *,
    include_ungraded: bool = False,
    changed_only: bool = False,
) -> Release:
    """The LMS's zip of every page that may go out, under ``run``'s feedback folder, and its record."""
    if lms not in ZIP_LMS:
        raise ValueError(f"no feedback zip for {lms}; choose one of {', '.join(ZIP_LMS)}")
    pages, held = plan(results, roster, intake, lms, include_ungraded=include_ungraded)
    done = Release(held=held)
    if changed_only:
        last = record.last_delivered(record.load(run.released), lms)
        done.unchanged = [p.student for p in pages if last.get(p.student) == p.sha256]
        pages = [p for p in pages if last.get(p.student) != p.sha256]
    done.pages = pages
    if not pages:
        return done
    done.archive = archive.write_zip(zip_path(run, assignment, lms), {p.file: p.data for p in pages})
    entry = record_entry(run, assignment, lms, VIA[lms], [delivered_item(p) for p in pages], held)
    entry["archive"] = done.archive.relative_to(run.feedback).as_posix()
    entry["archive_sha256"] = record.sha256(done.archive.read_bytes())
    done.record = record.append(run.released, entry)
    return done
