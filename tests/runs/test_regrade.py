"""A stopped batch resumed and a regrade's report (assignments/runs/regrade.py), through the real batch (grader
processes, sandboxed kernels) on the toy course: a toy submission takes a few seconds.
"""

from __future__ import annotations

import functools
import json
import shutil

import pytest

from assignments.grading.doors import batch
from assignments.grading.sandbox.limits import Limits
from assignments.intake import IntakeFinding, IntakeResult
from assignments.runs import store
from assignments.runs.folder import Run
from assignments.runs.regrade import RegradePlan, grader_version, submission_digest
from assignments.workflow import grade_jobs
from tests.fixtures import toy
from tests.fixtures.batch import grade_toy_job, limits_dict
from tests.runs.test_merge import record

LIMITS = limits_dict(Limits(cell_timeout=20, call_timeout=10, total_timeout=60, startup_timeout=60))
# The toy's hidden suite before a fix: scale(x, 0) was only checked for its shape. The fix is the toy's own
# suite, which checks the values too: a scale() that returns x itself for k == 0 passed before and not after.
LENIENT_TESTS = toy.HIDDEN_TESTS.replace(
    'expect_close(out, torch.zeros(4), "scale(x, 0)")',
    'expect(tuple(out.shape) == (4,), "scale(x, 0) keeps the shape")',
)
X_FOR_K0 = (
    'def scale(x, k):\n    """x * k, using add() k times (k a small int)."""\n'
    "    if k == 0:\n        return x\n    out = x * 0\n    for _ in range(k):\n        out = add(out, x)\n"
    "    return out"
)


# The tests that read toy_run run on one worker (`--dist loadgroup`), so that its class is graded once, not on
# each worker that got one of them.
ON_TOY_RUN = pytest.mark.xdist_group("regrade_toy_run")


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory):
    """The toy course (its lenient suite) with a class of two (the reference, and a scale() that returns x
    for k == 0), graded once into a run; the toy's files are the grader's, so a fix moves its version."""
    folder = tmp_path_factory.mktemp("batches")
    the_toy = toy.build(folder / "toy", tests=LENIENT_TESTS, pyproject=True)
    assert LENIENT_TESTS != toy.HIDDEN_TESTS
    shortcut = the_toy.reference()
    for cell in shortcut.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "scale":
            cell.source = X_FOR_K0
    jobs = [
        batch.Job("ada", str(the_toy.write(the_toy.reference(), "ada.ipynb"))),
        batch.Job("bo", str(the_toy.write(shortcut, "bo.ipynb"))),
    ]
    grader = functools.partial(grade_toy_job, str(the_toy.folder), LIMITS)
    run = folder / "run"
    first = grade_jobs(the_toy.assignment, jobs, run, workers=2, grader=grader)
    return the_toy, jobs, grader, run, {r.student: r for r in first}


@ON_TOY_RUN
def test_records_say_what_they_were_graded_from_and_by_what(toy_run):
    the_toy, jobs, _, run, first = toy_run
    version = grader_version(the_toy.assignment)
    for job in jobs:
        record = store.load_result(run / "results" / f"{job.student}.json")
        assert record.submission_sha256 == submission_digest(job.path), (
            f"{job.student}'s record should carry the SHA-256 of the notebook it graded"
        )
        assert record.grader_version == version, f"{job.student}'s record names grader {record.grader_version}"
    assert first["ada"].autograded_points == first["ada"].autograded_max == 5, "the reference should score 5 of 5"
    assert first["bo"].autograded_points == 5, "the lenient suite should miss bo's scale(x, 0)"


@ON_TOY_RUN
def test_a_batch_started_again_keeps_every_record_and_grades_nobody(toy_run, capsys):
    the_toy, jobs, grader, run, first = toy_run
    stamps = {p.name: p.stat().st_mtime_ns for p in (run / "results").glob("*.json")}
    again = grade_jobs(the_toy.assignment, jobs, run, workers=2, grader=grader)
    printed = capsys.readouterr().out
    assert "kept 2 record(s)" in printed, f"both records should be kept, the batch printed:\n{printed}"
    assert [r.timings for r in again] == [first[s].timings for s in ("ada", "bo")], (
        "a kept record must be the earlier grading itself, not a new one"
    )
    report = json.loads(Run(run).regrade_report.read_text())
    assert (report["graded"], report["kept"], report["changed"]) == (0, 2, []), report
    assert set(stamps) == {p.name for p in (run / "results").glob("*.json")}


@ON_TOY_RUN
def test_a_new_notebook_is_graded_again_while_the_classmate_is_kept(toy_run, tmp_path, capsys):
    the_toy, jobs, grader, run, _ = toy_run
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    resubmitted = the_toy.write(the_toy.reference(), "bo-second.ipynb")
    graded = grade_jobs(the_toy.assignment, [jobs[0], batch.Job("bo", str(resubmitted))], copy, 2, grader=grader)
    printed = capsys.readouterr().out
    assert "kept 1 record(s)" in printed, printed
    report = json.loads(Run(copy).regrade_report.read_text())
    assert (report["graded"], report["kept"]) == (1, 1), f"only bo's new notebook should be graded: {report}"
    assert report["changed"] == [], f"bo's new notebook scores what the old one did: {report['changed']}"
    assert store.load_result(copy / "results" / "bo.json").submission_sha256 == submission_digest(resubmitted)
    assert {r.student: r.autograded_points for r in graded} == {"ada": 5, "bo": 5}


@ON_TOY_RUN
def test_a_regrade_after_a_hidden_test_fix_reports_whose_scores_moved_on_which_question(toy_run, capsys):
    the_toy, jobs, grader, run, first = toy_run
    before = grader_version(the_toy.assignment)
    (the_toy.tests_dir / "test_toy.py").write_text(toy.HIDDEN_TESTS)
    after = grader_version(the_toy.assignment)
    assert after != before, "a changed hidden test must change the grader version"
    regraded = {r.student: r for r in grade_jobs(the_toy.assignment, jobs, run, workers=2, grader=grader)}
    printed = capsys.readouterr().out
    report = json.loads(Run(run).regrade_report.read_text())
    assert report["graded"] == 2 and report["kept"] == 0, f"the fix should regrade both students: {report}"
    assert [c["student"] for c in report["changed"]] == ["bo"], (
        f"only bo's scores should move (ada is the reference), the report says {report['changed']}"
    )
    change = report["changed"][0]
    assert change["questions"] == [
        {"grade_id": "scale_tests", "before": first["bo"].question("scale_tests").points, "after": 2.0}
    ], change
    assert change["why"].startswith("the grader changed"), change["why"]
    assert "bo: 5 -> 4 (scale_tests 3 -> 2; the grader changed" in printed, printed
    assert regraded["ada"].autograded_points == 5


def test_a_plan_keeps_a_record_with_this_intakes_findings_and_grades_a_changed_notebook(tmp_path):
    # No grading: the plan is decided from the run's records and the notebooks' bytes alone. The record is
    # written as runs on disk hold it (an intake finding is known by its catalogue code, nothing else).
    the_toy = toy.build(tmp_path / "toy", pyproject=True)
    same, changed = the_toy.write(the_toy.reference(), "ada.ipynb"), the_toy.write(the_toy.reference(), "bo.ipynb")
    run = Run(tmp_path / "run")
    for student, path in (("ada", same), ("bo", changed)):
        earlier = {
            **record(student, 2.0, grader_version(the_toy.assignment)).to_dict(),
            "submission_sha256": submission_digest(path),
            "findings": [
                {"code": "intake-late", "message": "submitted late", "severity": "info", "cell": None},
                {"code": "test-cell-edited", "message": "restored", "severity": "warning", "cell": "add_tests"},
            ],
        }
        run.results.mkdir(parents=True, exist_ok=True)
        (run.results / f"{student}.json").write_text(json.dumps(earlier))
    changed.write_text(changed.read_text() + " ")
    now = IntakeResult(toy.NAME, "download", findings=[IntakeFinding("duplicate", "two notebooks", "ada")])
    jobs = [batch.Job("ada", str(same)), batch.Job("bo", str(changed))]
    plan = RegradePlan.of(run, the_toy.assignment, jobs, now.findings_by_student())
    assert [r.student for r in plan.kept] == ["ada"] and [j.student for j in plan.todo] == ["bo"], plan
    assert [(f.code, f.source) for f in plan.kept[0].findings] == [
        ("test-cell-edited", "grader"),
        ("intake-duplicate", "intake"),
    ], "a kept record's intake findings are this intake's (the late flag went), the grader's stay"
    assert plan.todo[0].sha256 == submission_digest(changed), "a job to grade carries its notebook's SHA-256"
    assert plan.finish([], []) == [] and json.loads(run.regrade_report.read_text())["kept"] == 1
