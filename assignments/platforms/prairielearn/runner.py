"""What the grader image runs for a PrairieLearn external-grading job (``course prairielearn <assignment>``,
the question's ``entrypoint``): grade the notebook the student uploaded to ``/grade/student`` with the
standalone door and write ``/grade/results/results.json`` in PrairieLearn's format
(``results.py``) and exit 0 whatever the student uploaded; where the grader itself failed,
write none and exit non-zero (``GRADER_FAILURE_SPEC``).

The job folder as PrairieLearn lays it out (docs/externalGrading.md): ``/grade/student`` (the upload),
``/grade/data/data.json`` (the question's data; not needed: the notebook is the whole submission),
``/grade/tests`` and ``/grade/serverFilesCourse`` (the question's and the course's files), and
``/grade/results``, which the job must create. The upload is found and read as on Gradescope
(``gradescope_runner.grade_upload``: only a regular file inside the folder, never a link), with
PrairieLearn's own cap on its size (``PRAIRIELEARN_UPLOAD_BYTES``).

The question's ``info.json``, with the job's timeout derived from the grader's limits, is
``question``'s (``course prairielearn --print-timeout`` prints that timeout).

The assignment comes from the question's ``tests/`` folder when it holds one (``tests/course/``, laid out as
the repository: ``autograder/<a>/``, ``release/<a>/``, ``source/<a>/grading.json``; ``course image``
writes it), else from the image. So the image PrairieLearn pulls, which must be public, can be the
grader image's ``engine`` target, which holds no hidden test.
"""

from __future__ import annotations

import os
from pathlib import Path

from assignments.course import Assignment, Course, resolve
from assignments.escaping import printable
from assignments.platforms.prairielearn.results import write_results_json
from assignments.points import points_text
from assignments.results.model import Finding, rejected

# PrairieLearn's specification: docs/externalGrading.md ("Grading results") keeps ``"gradable": false``
# for input that "was invalid or formatted incorrectly" (the student keeps the attempt), and its grader
# host (apps/grader-host/src/index.ts at 0014ed16a70ac169798b414b8e6b64f86de050f2) sets the job's
# ``succeeded`` to ``!timedOut && ExitCode === 0`` and reads results.json only then, so a container that
# exits non-zero is a failed grading job, which staff see as one (with this log) and which no score
# comes from. A grader failure (``gradescope.runner.grader_failure``) therefore writes no results.json
# (removing a stale one), prints why to the job's log and exits non-zero; the student's own problems stay
# ``gradable: false`` with ``format_errors``.
GRADER_FAILURE_SPEC = "PrairieLearn docs/externalGrading.md; apps/grader-host/src/index.ts"
EXIT_GRADER_FAILED = 3

# The job's folders that hold what a student's kernel must not read: the upload (a private copy is graded)
# and the question's and course's files. Without namespaces, permissions are what keep the kernel out.
PRIVATE = ("student", "data", "tests", "serverFilesCourse")
STUDENT = "student"  # PrairieLearn's job names nobody; the record needs a key
# PrairieLearn's pl-file-upload takes at most 5 MB per answer (docs/elements/pl-file-upload.md; its script
# refuses files adding up to more than 5 * 1024 * 1024 bytes before they are sent, and the server refuses
# larger requests). A larger file reaches a job only past that element (a workspace's graded files, a
# hand-made request); it is answered as PrairieLearn would have: not graded, the attempt kept, and why.
PRAIRIELEARN_UPLOAD_BYTES = 5 * 1024 * 1024
UPLOAD_LIMIT_NAME = "PrairieLearn accepts for an upload"
QUESTION_COURSE = "course"  # the assignment's files in the question's tests/ folder: tests/course/


def job_assignment(assignment: str, job: Path) -> Assignment:
    """The ``Assignment`` named ``assignment`` to grade with (this entry point's one resolution): the copy in
    the job's ``tests/course/`` when there is one (the question's files), else the image's own."""
    shipped = Path(job) / "tests" / QUESTION_COURSE
    if (shipped / "autograder" / assignment).is_dir():
        return Course(shipped).assignment(assignment)
    return resolve(assignment)


def grade_with(hw, path: Path, student: str, limits=None):
    from assignments.grading.doors.standalone import grade_submission

    return grade_submission(hw, path, student, limits=limits)


def run(assignment: str, job: Path = Path("/grade"), limits=None) -> Path | None:
    """Grade the job in ``job`` and write ``job/results/results.json``; returns its path, or None where the
    grader failed (nothing written; ``main`` exits non-zero, see ``GRADER_FAILURE_SPEC``). ``limits``: the
    sandbox's (``Limits``; default its own), from which the question's timeout is derived."""
    from assignments.platforms.gradescope.runner import grade_upload, grader_failure, staff_lines, staff_traceback

    job = Path(job)
    results = job / "results" / "results.json"
    hw = None
    try:
        for name in PRIVATE:
            if (job / name).is_dir():
                os.chmod(job / name, 0o700)
        hw = job_assignment(assignment, job)
        result = grade_upload(
            hw,
            job / "student",
            STUDENT,
            grade=lambda _, path, who: grade_with(hw, path, who, limits),
            max_bytes=PRAIRIELEARN_UPLOAD_BYTES,
            limit_name=UPLOAD_LIMIT_NAME,
        )
    except Exception as error:  # noqa: BLE001 - the grader's failure, reported as one below
        staff_traceback()  # the job's log, which staff see
        result = rejected(
            STUDENT,
            hw or resolve(assignment),
            "standalone",
            Finding("grader-error", f"{type(error).__name__}: {error}", "error"),
        )
    if grader_failure(result):
        results.unlink(missing_ok=True)
        print("GRADER FAILURE: no results.json was written, so PrairieLearn records a failed grading job.")
        print("\n".join(staff_lines(result)))
        return None
    write_results_json(result, results)
    # PrairieLearn's grading host reads results.json as whatever user it runs as; the kernel is gone by now.
    os.chmod(results.parent, 0o755)
    os.chmod(results, 0o644)
    print(printable(f"{points_text(result.autograded_points)} / {points_text(result.autograded_max)} -> {results}"))
    for line in staff_lines(result):
        print(line)
    return results


def main(assignment: str, job: Path = Path("/grade"), limits=None) -> int:
    """``run``, as an exit status: 0 with a results.json, ``EXIT_GRADER_FAILED`` where the grader failed
    (whatever raised, RecursionError included)."""
    try:
        return 0 if run(assignment, job, limits) is not None else EXIT_GRADER_FAILED
    except Exception:  # noqa: BLE001 - a failed job, not a score
        from assignments.platforms.gradescope.runner import staff_traceback

        staff_traceback()
        (Path(job) / "results" / "results.json").unlink(missing_ok=True)
        print("GRADER FAILURE: no results.json was written; see the traceback above.")
        return EXIT_GRADER_FAILED
