"""What the grader image runs for a PrairieLearn external-grading job (``course prairielearn <assignment>``,
the question's ``entrypoint``): grade the notebook the student uploaded to ``/grade/student`` with the
standalone door and write ``/grade/results/results.json`` in PrairieLearn's format
(``exports/prairielearn.py``), whatever happens, and exit 0: PrairieLearn reads results only from a
container that exited 0.

The job folder as PrairieLearn lays it out (docs/externalGrading.md): ``/grade/student`` (the upload),
``/grade/data/data.json`` (the question's data; not needed: the notebook is the whole submission),
``/grade/tests`` and ``/grade/serverFilesCourse`` (the question's and the course's files), and
``/grade/results``, which the job must create. The upload is found and read as on Gradescope
(``gradescope_runner.grade_upload``: only a regular file inside the folder, never a link).

The assignment comes from the question's ``tests/`` folder when it holds one (``tests/course/``, laid out as
the repository: ``autograder/<a>/``, ``release/<a>/``, ``source/<a>/grading.json``; ``course image``
writes it), else from the image. So the image PrairieLearn pulls, which must be public, can be the
grader image's ``engine`` target, which holds no hidden test.
"""

from __future__ import annotations

import os
import traceback
from pathlib import Path

from .exports.prairielearn import write_results_json
from .exports.text import points
from .results.model import Finding, rejected

# The job's folders that hold what a student's kernel must not read: the upload (a private copy is graded)
# and the question's and course's files. Without namespaces, permissions are what keep the kernel out.
PRIVATE = ("student", "data", "tests", "serverFilesCourse")
STUDENT = "student"  # PrairieLearn's job names nobody; the record needs a key
QUESTION_COURSE = "course"  # the assignment's files in the question's tests/ folder: tests/course/


def job_assignment(assignment: str, job: Path):
    """The ``Assignment`` to grade with: the copy in the job's ``tests/course/`` when there is one (the
    question's files), else the image's own."""
    from .course import Course, resolve

    shipped = Path(job) / "tests" / QUESTION_COURSE
    if (shipped / "autograder" / assignment).is_dir():
        return Course(shipped).assignment(assignment)
    return resolve(assignment)


def grade_with(hw, path: Path, student: str):
    from assignments.grading.doors.standalone import grade_submission

    return grade_submission(hw, path, student)


def run(assignment: str, job: Path = Path("/grade")) -> Path:
    """Grade the job in ``job`` and write ``job/results/results.json``; returns its path."""
    from assignments.gradescope.runner import grade_upload

    job = Path(job)
    results = job / "results" / "results.json"
    for name in PRIVATE:
        if (job / name).is_dir():
            os.chmod(job / name, 0o700)
    try:
        hw = job_assignment(assignment, job)
        result = grade_upload(
            assignment, job / "student", STUDENT, grade=lambda _, path, who: grade_with(hw, path, who)
        )
    except Exception as error:  # noqa: BLE001 - the job must still end with a results.json
        traceback.print_exc()  # the job's log, which staff see
        result = rejected(
            STUDENT, assignment, "standalone", Finding("grader-error", f"{type(error).__name__}: {error}", "error")
        )
    write_results_json(result, results)
    # PrairieLearn's grading host reads results.json as whatever user it runs as; the kernel is gone by now.
    os.chmod(results.parent, 0o755)
    os.chmod(results, 0o644)
    print(f"{points(result.autograded_points)} / {points(result.autograded_max)} -> {results}")
    for finding in result.findings:
        print(f"  [{finding.severity}] {finding.code}: {finding.message}")
    return results
