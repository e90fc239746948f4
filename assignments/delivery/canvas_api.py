"""Feedback pages posted as submission comments through Canvas's API, with canvasapi (the maintained Python
client, ``pip install canvasapi``; not a dependency of the course: only this command needs it).

For each page, canvasapi's ``Submission.upload_comment`` runs Canvas's three-step file upload for submission
comments (``POST /api/v1/courses/:course/assignments/:assignment/submissions/:user/comments/files``) and
attaches the file to a new comment on that user's submission. The token is read from the environment
(``CANVAS_API_TOKEN``), never from the command line, where the shell history would keep it. ``dry_run``
prints what would be posted, one line a page, and contacts nothing.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from assignments.delivery import record
from assignments.delivery.release import Held, Page, Release, delivered_item, plan, record_entry
from assignments.escaping import one_line

TOKEN_VARIABLE = "CANVAS_API_TOKEN"


def plan_lines(pages: list[Page], url: str, course_id: str, assignment_id: str) -> list[str]:
    return [
        f"would post {page.file} ({len(page.data)} bytes, sha256 {page.sha256[:12]}, score {page.score}) as a "
        f"comment on Canvas user {page.lms_key['canvas_user_id']}'s submission to assignment {assignment_id} "
        f"of course {course_id} at {url}"
        for page in pages
    ]


def post(
    pages: list[Page], url: str, token: str, course_id: str, assignment_id: str, log=print
) -> tuple[list[dict], list[tuple[str, str]]]:
    """Post each page; returns (what Canvas confirmed, one item per page; (student, why) for each failure).
    RuntimeError when canvasapi is not installed or the course or assignment cannot be opened."""
    try:
        import canvasapi
        from canvasapi.exceptions import CanvasException
    except ImportError:
        raise RuntimeError("the Canvas API needs canvasapi: pip install canvasapi") from None
    try:
        assignment = canvasapi.Canvas(url, token).get_course(course_id).get_assignment(assignment_id)
    except CanvasException as error:
        raise RuntimeError(f"Canvas course {course_id}, assignment {assignment_id}: {one_line(error)}") from None
    posted, failed = [], []
    with tempfile.TemporaryDirectory(prefix="canvas-feedback-") as scratch:
        for page in pages:
            user = page.lms_key["canvas_user_id"]
            path = Path(scratch) / user / page.file
            path.parent.mkdir()
            path.write_bytes(page.data)
            try:
                done, answer = assignment.get_submission(user).upload_comment(str(path))
            except CanvasException as error:
                done, answer = False, one_line(error)
            if done:
                file_id = answer.get("id") if isinstance(answer, dict) else None
                posted.append({"student": page.student, "canvas_file_id": file_id})
                log(f"posted {page.file} to Canvas user {user}")
            else:
                failed.append((page.student, f"Canvas refused the comment: {one_line(answer)}"))
                log(f"not posted to Canvas user {user}: {one_line(answer)}")
    return posted, failed


def release_api(
    run,
    assignment: str,
    results,
    roster: dict,
    intake,
    *,
    url: str,
    course_id: str,
    assignment_id: str,
    token: str | None,
    dry_run: bool,
    include_ungraded: bool = False,
    changed_only: bool = False,
    log=print,
) -> Release:
    """Post every page that may go out (``release.plan``) as a comment, or only say what would be posted
    (``dry_run``: no token needed, nothing contacted, nothing recorded); what Canvas confirmed is recorded."""
    pages, held = plan(results, roster, intake, "canvas", include_ungraded=include_ungraded, api=True)
    done = Release(held=held)
    if changed_only:
        last = record.last_delivered(record.load(run.released), "canvas")
        done.unchanged = [p.student for p in pages if last.get(p.student) == p.sha256]
        pages = [p for p in pages if last.get(p.student) != p.sha256]
    if dry_run:
        for line in plan_lines(pages, url, course_id, assignment_id):
            log(line)
        done.pages = pages
        return done
    if not token:
        raise RuntimeError(f"set {TOKEN_VARIABLE} to a Canvas access token (Account > Settings > New Access Token)")
    posted, failed = post(pages, url, token, course_id, assignment_id, log)
    confirmed = {item["student"]: item for item in posted}
    done.pages = [p for p in pages if p.student in confirmed]
    done.held += [Held(student, why) for student, why in failed]
    if done.pages:
        delivered = [{**delivered_item(p), **confirmed[p.student]} for p in done.pages]
        entry = record_entry(run, assignment, "canvas", "canvas-api", delivered, done.held)
        entry["canvas"] = {"url": url, "course_id": course_id, "assignment_id": assignment_id}
        done.record = record.append(run.released, entry)
    return done
