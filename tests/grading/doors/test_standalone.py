"""The standalone door end to end: a class of honest, tampered and hostile submissions graded in one
batch of worker processes, then checked one by one.

- The toy assignment (``tests/fixtures/toy.py``) takes every hostile payload in
  ``tests/fixtures/hostile/``: each must yield its diagnostic, never score above the honest
  reference, and never stop the batch.
- The toy's reference gets full marks, its blank release 0, and the standalone door and the in-process
  door give it the same per-question scores. That a real assignment's reference does the same behind the
  standalone door is a check of the course's content: test_standalone_course.py (``make check-course``).
"""

import os

import psutil
import pytest

from assignments.course import REPO, default
from assignments.grading.doors.inprocess import grade_notebook
from assignments.grading.sandbox.limits import Limits
from assignments.results.model import SubmissionResult
from tests.fixtures import batch, payloads, structural, toy, warm

# One worker runs this module (`--dist loadgroup`): its module fixture grades the class once, not per worker.
pytestmark = pytest.mark.xdist_group("standalone")

TOY_LIMITS = Limits(
    cell_timeout=15, call_timeout=5, interrupt_grace=1, memory_bytes=2**30, max_restarts=2, total_timeout=120
)
PAYLOADS = payloads.payloads()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Every job of the class, graded once by three workers; label -> SubmissionResult."""
    root = tmp_path_factory.mktemp("standalone")
    the_toy = toy.build(root / "toy")
    jobs = []

    def add(label, nb_or_bytes, limits=TOY_LIMITS):
        if isinstance(nb_or_bytes, bytes):
            path = the_toy.folder / "submissions" / f"{label}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(nb_or_bytes)
        else:
            path = the_toy.write(nb_or_bytes, f"{label}.ipynb")
        jobs.append((label, str(the_toy.folder), toy.NAME, str(path), batch.limits_dict(limits)))

    for payload in payloads.slowest_first(PAYLOADS):
        add(
            f"hostile:{payload.name}",
            payloads.inject(the_toy.reference(), payload, REPO),
            payloads.limits_for(payload, TOY_LIMITS),
        )
    add("toy:reference", the_toy.reference())
    add("toy:blank", the_toy.release)
    add("toy:tampered", structural.all_tampering(the_toy.reference()))
    add("toy:nbformat3", structural.nbformat3(the_toy.reference()))
    add("toy:invalid_json", structural.invalid_json(the_toy.reference()))
    add("toy:reference-again", the_toy.reference())  # graded after hostile ones in the same workers

    sandboxes = root / "tmp"
    sandboxes.mkdir()
    saved = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(sandboxes)  # workers make their sandboxes here, so leftovers are visible
    try:
        with warm.zygote():  # kernels start as in `course grade`'s batches: forked from a warm zygote
            results = batch.grade_all(jobs, workers=3)
    finally:
        if saved is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved
    return {
        "results": {k: SubmissionResult.from_dict(v) for k, v in results.items()},
        "labels": [job[0] for job in jobs],
        "sandboxes": sandboxes,
        # the trusted reference through the other door, in this process (a second or so for the toy)
        "in-process": grade_notebook(the_toy.assignment, the_toy.reference()),
    }


def codes(result):
    return {f.code for f in result.findings}


def failures(result):
    return [t.message for q in result.questions for t in q.tests if t.outcome != "passed"]


def test_every_submission_got_a_result_and_nothing_was_left_behind(graded):
    assert set(graded["results"]) == set(graded["labels"])
    left = [p.name for p in graded["sandboxes"].glob("course-sandbox-*")]
    assert left == [], f"sandbox work folders were not removed: {left}"
    for process in psutil.process_iter(["cmdline"]):
        assert str(graded["sandboxes"]) not in " ".join(process.info["cmdline"] or []), (
            f"sandbox process {process.pid} outlived its grading"
        )


def test_every_kernel_of_the_class_was_forked_from_the_warm_zygote(graded):
    cold = [
        label
        for label, result in graded["results"].items()
        if result.status == "graded" and "kernel_start_s" in result.timings and result.timings.get("warm_kernel") != 1
    ]
    assert not cold, f"these submissions' kernels started cold, so the hostile class did not test warm kernels: {cold}"


def test_toy_reference_gets_full_marks_blank_gets_zero(graded):
    for label in ("toy:reference", "toy:reference-again"):
        result = graded["results"][label]
        assert result.status == "graded" and result.door == "standalone"
        assert result.scores() == {"add_tests": 2.0, "scale_tests": 3.0, "scale_written": None}, failures(result)
        assert [f for f in result.findings if f.severity != "info"] == []
        assert {"execute_s", "tests_s", "total_s"} <= set(result.timings)
    blank = graded["results"]["toy:blank"]
    assert blank.autograded_points == 0 and blank.status == "graded"
    assert all("NotImplementedError" in message for message in failures(blank))


def test_tampered_test_cells_are_restored_and_reported(graded):
    result = graded["results"]["toy:tampered"]
    assert structural.EXPECTED["all_tampering"] <= codes(result)
    assert result.scores() == graded["results"]["toy:reference"].scores()
    assert result.question("add_tests").max_points == 2.0  # the points metadata said 100


def test_old_nbformat_is_graded_after_conversion(graded):
    result = graded["results"]["toy:nbformat3"]
    assert "old-nbformat" in codes(result)
    assert result.scores() == graded["results"]["toy:reference"].scores()


def test_invalid_json_is_rejected_in_the_batch(graded):
    result = graded["results"]["toy:invalid_json"]
    assert result.status == "rejected" and "invalid-json" in codes(result) and result.autograded_points == 0


@pytest.mark.parametrize("payload", PAYLOADS, ids=[p.name for p in PAYLOADS])
def test_hostile_submission(graded, payload):
    result = graded["results"][f"hostile:{payload.name}"]
    honest = graded["results"]["toy:reference"]
    assert result.status == "graded", result.findings
    assert payload.expect <= codes(result), (payload.mistake, [(f.code, f.message) for f in result.findings])
    for question in result.questions:
        if question.kind == "autograded":
            assert question.points <= honest.question(question.grade_id).points, (
                f"{payload.name} inflated {question.grade_id}"
            )
            assert question.max_points == honest.question(question.grade_id).max_points
    if payload.message:
        assert any(payload.message in message for message in failures(result)), failures(result)
    for finding in result.findings:
        assert "Traceback" not in finding.message and len(finding.message) < 1200


def test_killed_and_exploded_kernels_cost_only_the_cells_that_did_it(graded):
    for name in ("os_exit", "kill_kernel", "memory_blowup"):
        result = graded["results"][f"hostile:{name}"]
        assert result.question("scale_tests").points == 3.0, (name, failures(result))
        assert result.timings["restarts"] >= 1


def test_memory_cap_held(graded):
    result = graded["results"]["hostile:memory_blowup"]
    # the watchdog samples every 50 ms; allow what a fast allocator adds between two samples
    assert result.timings["kernel_peak_mb"] < TOY_LIMITS.memory_bytes / 2**20 + 600


def test_reading_grader_files_changes_nothing(graded):
    # what the payload managed to read (nothing) is checked in grading/sandbox/test_standalone_sandbox.py
    result = graded["results"]["hostile:read_files"]
    assert result.scores() == graded["results"]["toy:reference"].scores()


def test_standalone_agrees_with_in_process(graded):
    """The sandboxed door and the in-process door (the self-test's) score the toy's reference alike,
    question by question."""
    standalone, in_process = graded["results"]["toy:reference"], graded["in-process"]
    assert in_process.door == "in-process" and in_process.findings == [], in_process.findings
    differ = {
        q.grade_id: {
            "standalone": (q.points, failures_of(q)),
            "in-process": (in_process.question(q.grade_id).points, failures_of(in_process.question(q.grade_id))),
        }
        for q in standalone.questions
        if q.points != in_process.question(q.grade_id).points
    }
    assert differ == {}, "the two doors disagree on the toy's reference"


def failures_of(question):
    return [f"{t.name}: {t.message}" for t in question.tests if t.outcome != "passed"]


def test_stashing_stand_ins_in_the_kernel_earns_nothing(graded):
    """The stand_in_stash payload answers every question wrongly and replays every stand-in it sees into
    its namespace: it must score what its wrong answers deserve, zero."""
    result = graded["results"]["hostile:stand_in_stash"]
    assert result.autograded_points == 0, failures(result)
    assert not [f for f in result.findings if f.code in ("suite-problem", "grader-error")], result.findings


def longest_shared_run(text: str, secret: str) -> int:
    """Length of the longest substring of ``secret`` that also occurs in ``text`` (binary search)."""

    def shared(n):
        pieces = {secret[i : i + n] for i in range(len(secret) - n + 1)}
        return any(text[i : i + n] in pieces for i in range(len(text) - n + 1))

    low, high = 0, len(secret)
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if shared(middle) else (low, middle - 1)
    return low


def test_no_export_carries_answer_key_text(graded, tmp_path):
    """Every hostile record (smuggle_key raises the hidden snippet and every stand-in it saw as its
    exception text) goes through every exporter; no file written may hold more than KERNEL_TEXT_CHARS
    consecutive characters of a stand-in or hidden-test file."""
    from assignments.grading.doors import batch as class_batch
    from assignments.grading.testkit.kernel_text import KERNEL_TEXT_CHARS
    from assignments.runs.folder import Run
    from assignments.workflow import export

    run = Run(tmp_path)
    for label, result in graded["results"].items():
        if label.startswith(("hostile:", "toy:")) and result.assignment == toy.NAME:
            class_batch.save(result, run)
    problems = []
    written = export(run, default().assignment(toy.NAME), strict=False, problems=problems)
    files = [p for paths in written.values() for p in paths if p.is_file()]
    assert files, problems
    secrets = [toy.STAND_INS, toy.HIDDEN_TESTS]
    for path in files:
        text = path.read_bytes().decode("utf-8", "replace")
        for secret in secrets:
            run = longest_shared_run(text, secret)
            assert run <= KERNEL_TEXT_CHARS, f"{path.name} holds {run} consecutive characters of the answer key"
