"""Time and memory budgets of the grader itself (issue 15, deliverable 3): a hidden test whose check the
student's answer made endless or huge scores 0 with a ``test-budget`` finding, the submission's other
tests keep what they earned, and a classmate graded in the same batch is untouched.

One batch grades the toy (with its expensive suite, toy.EXPENSIVE_TESTS) for an honest student and for
each payload in tests/fixtures/hostile/budget/, two grader processes at a time, under a small
GraderBudget so the kills come quickly.
"""

import functools
import json
import multiprocessing
import time
from pathlib import Path

import pytest
from filelock import FileLock

from assignments.course import default
from assignments.grading.doors import batch
from assignments.grading.sandbox import cgroups
from assignments.grading.sandbox.limits import Limits
from assignments.results.model import BUDGET_FINDING, SubmissionResult
from tests.fixtures import payloads, toy
from tests.fixtures.batch import grade_or_die, grade_toy_job, limits_dict

BUDGET = batch.GraderBudget(wall_seconds=120.0, memory_bytes=1536 * 2**20, cpu_grace_seconds=2.0)
BATCH_BOUND_S = 150.0  # four toy submissions, two killed once each, with two grader processes at a time
PAYLOADS = {payload.name: payload for payload in payloads.budget_payloads()}
# The one test each payload makes too expensive, and what the submission must still score per question.
VIOLATED = {
    "endless_in_c": "test_scale_counted_in_c",
    "endless_in_python": "test_add_counted_in_python",
    "huge_in_grader": "test_scale_buffer",
}
EXPECTED = {
    "endless_in_c": {"add_tests": 2, "scale_tests": 2},
    "endless_in_python": {"add_tests": 1, "scale_tests": 3},
    "huge_in_grader": {"add_tests": 2, "scale_tests": 2},
}


def grade_the_batch(folder):
    the_toy = toy.build(folder / "toy", tests=toy.EXPENSIVE_TESTS)
    jobs = [batch.Job("honest", str(the_toy.write(the_toy.reference(), "honest.ipynb")))]
    jobs += [
        batch.Job(name, str(the_toy.write(payloads.inject(the_toy.reference(), payload), f"{name}.ipynb")))
        for name, payload in PAYLOADS.items()
    ]
    limits = limits_dict(Limits(cell_timeout=20, call_timeout=10, total_timeout=60, startup_timeout=60))
    grader = functools.partial(grade_toy_job, str(the_toy.folder), limits)
    began = time.monotonic()
    results = batch.grade_batch(
        the_toy.assignment, jobs, folder / "out", workers=2, progress=False, budget=BUDGET, grader=grader
    )
    # cgroups of sandboxes whose grader process was killed before its teardown (removed by the batch)
    stale = [str(f) for h in cgroups.preferred(cgroups.discover()) for f in cgroups.stale(h.own)]
    return {
        "results": [r.to_dict() for r in results],
        "seconds": time.monotonic() - began,
        "out": str(folder / "out"),
        "leftover": [p.name for p in multiprocessing.active_children()],
        "stale_cgroups": stale,
    }


@pytest.fixture(scope="module")
def graded(tmp_path_factory, worker_id):
    """The batch, graded once per test run: under xdist the first worker to get here grades it and the
    others read its record (xdist_group does not keep a module on one worker with pytest 9)."""
    if worker_id == "master":
        data = grade_the_batch(tmp_path_factory.mktemp("budget"))
    else:
        shared = tmp_path_factory.getbasetemp().parent  # the same folder for every worker of this run
        with FileLock(str(shared / "grader_budget.lock")):
            record = shared / "grader_budget.json"
            if not record.is_file():
                record.write_text(json.dumps(grade_the_batch(shared / "grader_budget")))
            data = json.loads(record.read_text())
    data["results"] = {r["student"]: SubmissionResult.from_dict(r) for r in data["results"]}
    data["out"] = Path(data["out"])
    return data


def scores(result):
    return {q.grade_id: q.points for q in result.questions if q.kind == "autograded"}


def test_budget_payloads_cover_every_violation():
    assert set(PAYLOADS) == set(VIOLATED), (
        f"payloads in hostile/budget/ {sorted(PAYLOADS)} should be exactly {sorted(VIOLATED)}"
    )


def test_honest_classmate_in_the_same_batch_gets_full_marks(graded):
    result = graded["results"]["honest"]
    assert scores(result) == {"add_tests": 2, "scale_tests": 3}, (
        f"the honest submission should score full marks; got {scores(result)}, findings {result.findings}"
    )
    assert not [f for f in result.findings if f.severity == "error"], result.findings
    assert result.timings.get("grader_processes") == 1, result.timings


@pytest.mark.parametrize("name", sorted(VIOLATED))
def test_violating_test_scores_zero_with_a_budget_finding(graded, name):
    result, payload = graded["results"][name], PAYLOADS[name]
    tests = {t.name: t for q in result.questions for t in q.tests}
    violated = tests.get(VIOLATED[name])
    assert violated is not None, f"{name}: {VIOLATED[name]} should be in the record; got {sorted(tests)}"
    assert violated.points == 0 and violated.outcome == "failed", violated
    assert payload.message in violated.message, (
        f"{name}: the test's message should say {payload.message!r}; got {violated.message!r}"
    )
    budget = [f for f in result.findings if f.code == BUDGET_FINDING]
    assert len(budget) == 1 and VIOLATED[name] in budget[0].message, (
        f"{name}: expected one {BUDGET_FINDING} finding naming {VIOLATED[name]}; got {result.findings}"
    )


@pytest.mark.parametrize("name", sorted(VIOLATED))
def test_other_tests_of_the_submission_still_score(graded, name):
    result = graded["results"][name]
    assert result.status == "graded", result.findings
    assert scores(result) == EXPECTED[name], (
        f"{name}: every test but {VIOLATED[name]} should pass; got {scores(result)}, "
        f"tests {[(t.name, t.points, t.message) for q in result.questions for t in q.tests]}"
    )
    names = [t.name for q in result.questions for t in q.tests]
    assert len(names) == len(set(names)) == 5, f"{name}: each of the 5 tests exactly once; got {names}"


def test_endless_check_in_c_is_ended_by_a_fresh_grader_process(graded):
    assert graded["results"]["endless_in_c"].timings.get("grader_processes") == 2
    assert graded["results"]["huge_in_grader"].timings.get("grader_processes") == 2


def test_timer_inside_the_grader_stops_a_python_loop_without_a_new_process(graded):
    assert graded["results"]["endless_in_python"].timings.get("grader_processes") == 1


def test_batch_finishes_in_bounded_time_and_leaves_no_grader_process(graded):
    assert graded["seconds"] < BATCH_BOUND_S, f"the batch took {graded['seconds']:.0f} s; bound {BATCH_BOUND_S}"
    assert not graded["leftover"], f"grader processes still alive after the batch: {graded['leftover']}"
    assert not graded["stale_cgroups"], graded["stale_cgroups"]
    files = sorted(p.stem for p in (graded["out"] / "results").glob("*.json"))
    assert files == sorted(graded["results"]), files


def test_grader_dying_outside_a_test_is_retried_once_then_recorded_alone(tmp_path):
    jobs = [batch.Job("dies", "dies.ipynb"), batch.Job("classmate", "classmate.ipynb")]
    dies, classmate = batch.grade_batch(
        default().assignment(toy.NAME),
        jobs,
        tmp_path,
        workers=2,
        progress=False,
        grader=grade_or_die,
        warm_kernels=False,
    )  # this grader starts no kernel
    assert [f.code for f in dies.findings] == ["grader-crash"] and "stopped 2 time(s)" in dies.findings[0].message, (
        f"a grader dying twice outside any test should give one grader-crash finding; got {dies.findings}"
    )
    assert classmate.status == "graded" and not classmate.findings, (
        f"the classmate graded beside it should be untouched; got {classmate}"
    )
    assert sorted(p.stem for p in (tmp_path / "results").glob("*.json")) == ["classmate", "dies"]
