"""The grader image, graded through with podman as each engine runs it (`make image-test`, which builds the
image first; `make test` leaves this module out).

- Gradescope's "Manual Docker configuration": the upload in /autograder/submission, /autograder/run_autograder,
  results.json in /autograder/results.
- A PrairieLearn external-grading job: /grade/student and /grade/data/data.json in, the assignment in the
  question's /grade/tests (as `course image` writes it), the entrypoint `course prairielearn <assignment>` of
  the image's `engine` target (no hidden test in it: PrairieLearn pulls public images),
  /grade/results/results.json out (score in [0, 1], per-test points, `gradable: false` for an unreadable
  upload).
- A batch on a container host or a Kubernetes Indexed Job: the class's download in /autograder/input, `course
  grade` whole and as three shards, `course merge` of the shards, which must equal the whole-class run.

Each engine grades the reference, the blank release and a hostile notebook (the reference whose first answer
ends its own kernel with os._exit). Every container runs without a network, as PrairieLearn and Gradescope
run them. Environment (set by the Makefile): COURSE_IMAGE (the image), COURSE_ENGINE_IMAGE (its `engine`
target), COURSE_IMAGE_ASSIGNMENT (the assignment it grades), COURSE_IMAGE_ROOT (the course folder it was
built from, when not this checkout: `make image-test-toy` builds the toy course's image), COURSE_PODMAN
(the `podman ... run` command with this machine's flags).
"""

from __future__ import annotations

import csv
import json
import os
import shlex
import shutil
import subprocess
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from assignments.course import Course, default
from assignments.demo import students as demo_class
from assignments.platforms.grader_image import PRAIRIELEARN, write_context
from assignments.runs.folder import Run
from tests.fixtures import payloads
from tests.fixtures.gradescope_tree import check_results_schema
from tests.helpers import notebook_bytes, tool_unavailable

IMAGE = os.environ.get("COURSE_IMAGE", "")
ENGINE = os.environ.get("COURSE_ENGINE_IMAGE", "")
A = os.environ.get("COURSE_IMAGE_ASSIGNMENT", "transfer_lm")
COURSE = Course(Path(os.environ["COURSE_IMAGE_ROOT"])) if os.environ.get("COURSE_IMAGE_ROOT") else default()
PODMAN = shlex.split(os.environ.get("COURSE_PODMAN", "podman run"))
# One container's bound, only against a hang: the grader bounds itself (450 s of wall time per submission,
# 750 s per grader process), and on this shared machine, loaded by other jobs to 20 on 2 cores, one grading
# took over 10 minutes of wall time for 40 s of CPU time (idle: about a minute).
RUN_TIMEOUT_S = 1800
SHARDS = 3
# Containers at once, each grading one submission at a time (the batches too: `--workers 1`): two on the
# machine's two cores. Fewer where other work loads the machine: a kernel that cannot start within the
# sandbox's startup_timeout (60 s of wall time, cold in a container) fails the grading. At a load of 15
# from other jobs, two at once failed that way; COURSE_IMAGE_AT_ONCE=1 runs them one after the other.
AT_ONCE = int(os.environ.get("COURSE_IMAGE_AT_ONCE", "2"))


@pytest.fixture(scope="module", autouse=True)
def image():
    if not (IMAGE and ENGINE):
        tool_unavailable("COURSE_IMAGE and COURSE_ENGINE_IMAGE name no grader image (`make image-test` builds them)")
    if shutil.which(PODMAN[0]) is None:
        tool_unavailable(f"{PODMAN[0]} is not installed (.ci/install-podman)")
    for name in (IMAGE, ENGINE):
        if subprocess.run([PODMAN[0], "image", "exists", name], capture_output=True).returncode != 0:
            tool_unavailable(f"the image {name} is not built (make image)")
    return IMAGE


def container(
    *command: str, mounts: dict[Path, str], image: str = IMAGE, timeout: float = RUN_TIMEOUT_S
) -> subprocess.CompletedProcess:
    """Run ``command`` in ``image`` with ``mounts`` (host path -> path inside) and no network."""
    volumes = [arg for host, inside in mounts.items() for arg in ("-v", f"{host}:{inside}")]
    done = subprocess.run(
        [*PODMAN, "--rm", "--network", "none", *volumes, image, *command],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return done


def notebooks() -> dict[str, bytes]:
    """The three students every engine grades: the reference, the blank release, and the hostile one."""
    reference = demo_class.filled_release(COURSE.assignment(A))
    hostile = payloads.inject(reference, payloads.by_name("os_exit"), "/autograder/source")
    return {
        "reference": notebook_bytes(reference),
        "blank": notebook_bytes(COURSE.assignment(A).release_notebook()),
        "hostile": notebook_bytes(hostile),
    }


def full_marks() -> float:
    return sum(q.points for q in COURSE.assignment(A).questions if q.kind == "autograded")


# --- Gradescope -------------------------------------------------------------------------------------------


def gradescope(folder: Path, upload: bytes) -> dict:
    """One Gradescope job: the upload, run_autograder, results.json (checked against Gradescope's fields)."""
    (folder / "submission").mkdir(parents=True)
    (folder / "results").mkdir()
    (folder / "submission" / f"{A}.ipynb").write_bytes(upload)
    done = container(
        "/autograder/run_autograder",
        mounts={folder / "submission": "/autograder/submission", folder / "results": "/autograder/results"},
    )
    results = folder / "results" / "results.json"
    assert done.returncode == 0 and results.is_file(), (
        f"run_autograder exited {done.returncode} and left {'a' if results.is_file() else 'no'} results.json:\n"
        f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    data = json.loads(results.read_text())
    check_results_schema(data)
    return data


@pytest.fixture(scope="module")
def through_gradescope(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gradescope")
    with ThreadPoolExecutor(AT_ONCE) as pool:
        jobs = {name: pool.submit(gradescope, folder / name, data) for name, data in notebooks().items()}
        return {name: job.result() for name, job in jobs.items()}


def test_gradescope_gives_the_reference_full_marks(through_gradescope):
    data = through_gradescope["reference"]
    assert data["score"] == pytest.approx(full_marks()), (
        f"the reference should score {full_marks()} through the image's run_autograder, not {data['score']}:\n"
        f"{data['output']}"
    )


def test_gradescope_gives_the_blank_release_zero(through_gradescope):
    data = through_gradescope["blank"]
    assert data["score"] == 0 and data["tests"], f"the blank release should score 0 with its tests listed: {data}"


def test_gradescope_grades_a_notebook_that_ends_its_kernel_and_says_so(through_gradescope):
    data = through_gradescope["hostile"]
    assert 0 <= data["score"] < full_marks(), f"ending the kernel should cost points, scored {data['score']}"
    assert "kernel" in data["output"].lower(), f"the student should be told their kernel ended:\n{data['output']}"


# --- PrairieLearn -----------------------------------------------------------------------------------------


def prairielearn(folder: Path, upload: bytes, question: Path) -> dict:
    """One PrairieLearn job laid out as its grading host does (docs/externalGrading.md): ``question`` is
    the question's tests/ folder. Graded by the entrypoint a question names, in the engine image; the
    container must exit 0 (PrairieLearn reads results only then)."""
    job = folder / "grade"
    shutil.copytree(question, job / "tests")
    for part in ("student", "data"):
        (job / part).mkdir(parents=True)
    (job / "student" / f"{A}.ipynb").write_bytes(upload)
    (job / "data" / "data.json").write_text(json.dumps({"params": {}, "submitted_answers": {}}))
    done = container("/usr/local/bin/course", "prairielearn", A, mounts={job: "/grade"}, image=ENGINE)
    results = job / "results" / "results.json"
    assert done.returncode == 0 and results.is_file(), (
        f"the PrairieLearn entrypoint exited {done.returncode} and left "
        f"{'a' if results.is_file() else 'no'} results.json:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    assert results.stat().st_size < 2**20, "PrairieLearn refuses a results.json over 1 MB"
    return json.loads(results.read_text())


def check_prairielearn_schema(data: dict) -> None:
    """PrairieLearn's results fields: a gradable result has a score in [0, 1], and every test has points
    and max_points (else its results element shows no per-test points at all)."""
    assert isinstance(data.get("gradable"), bool), f"gradable should be true or false: {data.get('gradable')!r}"
    if not data["gradable"]:
        assert data.get("format_errors"), "an ungradable result should say why in format_errors"
        return
    assert isinstance(data.get("score"), float) and 0.0 <= data["score"] <= 1.0, f"score {data.get('score')!r}"
    assert data.get("tests"), "a graded result should list its tests"
    for test in data["tests"]:
        for key, kind in (("name", str), ("points", float), ("max_points", float), ("message", str), ("output", str)):
            assert isinstance(test.get(key), kind), f"test {test.get('name')!r}: {key} should be {kind}: {test}"
        assert 0 <= test["points"] <= test["max_points"], f"test points out of range: {test}"


@pytest.fixture(scope="module")
def through_prairielearn(tmp_path_factory):
    folder = tmp_path_factory.mktemp("prairielearn")
    question = write_context(COURSE.assignment(A), folder / "context") / PRAIRIELEARN / "tests"  # the question's tests/
    uploads = {**notebooks(), "unreadable": b"\x89PNG not a notebook"}
    with ThreadPoolExecutor(AT_ONCE) as pool:
        jobs = {name: pool.submit(prairielearn, folder / name, data, question) for name, data in uploads.items()}
        graded = {name: job.result() for name, job in jobs.items()}
    for data in graded.values():
        check_prairielearn_schema(data)
    return graded


def test_prairielearn_gives_the_reference_a_score_of_one_with_per_test_points(through_prairielearn):
    data = through_prairielearn["reference"]
    assert data["gradable"] and data["score"] == 1.0, f"the reference should score 1.0: {data['message']}"
    assert sum(t["max_points"] for t in data["tests"]) == pytest.approx(full_marks()), (
        f"the tests' max_points should add up to the autograded total {full_marks()}"
    )
    assert all(t["points"] == t["max_points"] for t in data["tests"]), "the reference should pass every test"


def test_prairielearn_gives_the_blank_release_zero(through_prairielearn):
    data = through_prairielearn["blank"]
    assert data["gradable"] and data["score"] == 0.0, f"the blank release should score 0: {data['message']}"


def test_prairielearn_grades_a_notebook_that_ends_its_kernel(through_prairielearn):
    data = through_prairielearn["hostile"]
    assert data["gradable"] and data["score"] < 1.0, f"ending the kernel should cost points: {data['message']}"


def test_prairielearn_marks_an_unreadable_upload_not_gradable(through_prairielearn):
    data = through_prairielearn["unreadable"]
    assert data["gradable"] is False, f"an upload that is no notebook must not cost an attempt: {data}"
    assert "score" not in data, "an ungradable result carries no score"
    assert any("not a readable Jupyter notebook" in e for e in data["format_errors"]), data["format_errors"]


# --- batches: whole, three shards merged, resumed -----------------------------------------------------------


@pytest.fixture(scope="module")
def batch_runs(tmp_path_factory):
    """The class (the three students, and one who sent only a PDF) as a Canvas download, graded through the
    image whole and as three shards (AT_ONCE containers at a time), then the shards merged."""
    folder = tmp_path_factory.mktemp("batch")
    download = folder / "input" / "canvas.zip"
    import nbformat

    students = {name: nbformat.reads(data.decode("utf-8"), as_version=4) for name, data in notebooks().items()}
    demo_class.write_canvas_zip(COURSE.assignment(A), students, download)
    with zipfile.ZipFile(download, "a") as archive:
        archive.writestr("lateperson_LATE_1099_50099_report.pdf", b"%PDF-1.4 not a notebook")
    runs = folder / "runs"
    runs.mkdir()
    mounts = {download.parent: "/autograder/input", runs: "/runs"}
    inside = f"/autograder/input/{download.name}"

    def grade(out: str, *more: str) -> subprocess.CompletedProcess:
        return container("course", "grade", A, inside, "--out", f"/runs/{out}", "--workers", "1", *more, mounts=mounts)

    with ThreadPoolExecutor(AT_ONCE) as pool:
        whole = pool.submit(grade, "whole")
        shards = [pool.submit(grade, f"shard-{i}", "--shard", f"{i}/{SHARDS}") for i in range(SHARDS)]
        done = [whole.result()] + [shard.result() for shard in shards]
    for run in done:
        assert run.returncode == 0, f"course grade failed in the image:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    merged = container(
        "course", "merge", A, *(f"/runs/shard-{i}" for i in range(SHARDS)), "--out", "/runs/merged", mounts=mounts
    )
    assert merged.returncode == 0, f"course merge failed in the image:\n{merged.stdout[-3000:]}\n{merged.stderr}"
    # The shard with the most notebooks, started again over its own run: every record must be kept.
    notebooks_in = [len(list((runs / f"shard-{i}" / "submissions").glob("**/*.ipynb"))) for i in range(SHARDS)]
    graded = [sum(1 for r in records(runs / f"shard-{i}").values() if r["submission_sha256"]) for i in range(SHARDS)]
    busiest = max(range(SHARDS), key=lambda i: graded[i])
    resumed = grade(f"shard-{busiest}", "--shard", f"{busiest}/{SHARDS}")
    return {"runs": runs, "resumed": resumed, "busiest": busiest, "kept": graded[busiest], "copied": notebooks_in}


def records(run: Path) -> dict[str, dict]:
    """student -> record, without what differs between two gradings of one notebook: timings, the file's
    path, and digits in findings (durations; the random uid a kernel ran as)."""
    found = {}
    for path in sorted((run / "results").glob("*.json")):
        data = json.loads(path.read_text())
        for key in ("timings", "source_file"):
            data.pop(key)
        for question in data["questions"]:
            for test in question["tests"]:
                test.pop("seconds")
        for finding in data["findings"]:
            finding["message"] = "".join(ch for ch in finding["message"] if not ch.isdigit())
        found[path.stem] = data
    return found


def test_the_batch_grades_the_class_as_the_engines_do(batch_runs):
    whole = records(batch_runs["runs"] / "whole")
    assert len(whole) == 4, f"four students should have records: {sorted(whole)}"
    scores = sorted(
        (sum(q["points"] or 0 for q in r["questions"] if q["kind"] == "autograded"), r["status"])
        for r in whole.values()
    )
    assert scores[-1] == (full_marks(), "graded"), f"the reference should have full marks: {scores}"
    assert [s for s, _ in scores].count(0) >= 2, f"the blank and the student without a notebook score 0: {scores}"
    # podman refuses namespaces here: the sandbox's fallback must run each kernel under a uid of its own
    # (possible because the image's Python is outside /root), never as root, and say so in the record.
    graded = [r for r in whole.values() if r["status"] == "graded"]
    for record in graded:
        notes = [f["message"] for f in record["findings"] if f["code"] == "sandbox-degraded"]
        assert notes and "without namespaces the kernel ran as uid" in notes[0], (
            f"{record['student']}: expected the no-namespace fallback with a uid of the kernel's own, got {notes}"
        )


def test_three_shards_split_the_class_and_merge_into_the_whole_class_run(batch_runs):
    runs = batch_runs["runs"]
    parts = [set(records(runs / f"shard-{i}")) for i in range(SHARDS)]
    assert sum(len(p) for p in parts) == 4 and set().union(*parts) == set(records(runs / "whole")), (
        f"each student should be graded by exactly one shard: {parts}"
    )
    assert sum(1 for p in parts if p) >= 2, f"the class should spread over the shards: {parts}"
    assert records(runs / "merged") == records(runs / "whole"), (
        "the merged shards' records differ from the whole-class run's"
    )


def test_merged_run_writes_the_same_exports_as_the_whole_class_run(batch_runs):
    runs = batch_runs["runs"]
    whole, merged = runs / "whole" / "exports", runs / "merged" / "exports"
    canvas = f"canvas/{A}_canvas.csv"
    with open(whole / canvas, newline="") as a, open(merged / canvas, newline="") as b:
        assert list(csv.reader(a)) == list(csv.reader(b)), "the Canvas CSVs of the merged and whole runs differ"
    for path in sorted((whole / "gradescope-preview").glob("*.json")):
        one, other = json.loads(path.read_text()), json.loads((merged / "gradescope-preview" / path.name).read_text())
        for data in (one, other):
            data.pop("execution_time")
            data["output"] = "".join(ch for ch in data["output"] if not ch.isdigit())
        assert one == other, f"Gradescope's {path.name} differs between the merged and the whole-class run"
    assert sorted(p.name for p in (merged / "feedback").rglob("*")) == sorted(
        p.name for p in (whole / "feedback").rglob("*")
    ), "the merged run should write feedback for the same students"


def test_a_shard_run_again_keeps_its_records_instead_of_grading_again(batch_runs):
    resumed = batch_runs["resumed"]
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"kept {batch_runs['kept']} record(s)" in resumed.stdout, (
        f"the image should find its own records current (same notebook, same grader version):\n{resumed.stdout}"
    )
    report = json.loads(Run(batch_runs["runs"] / f"shard-{batch_runs['busiest']}").regrade_report.read_text())
    assert report["graded"] == 0 and report["kept"] == batch_runs["kept"], report


PROBE = """
import json, os, sys, glob
print(json.dumps({
    "python": os.path.realpath(sys.executable),
    "notebooks": glob.glob("/autograder/source/source/**/*.ipynb", recursive=True),
    "hidden_tests": glob.glob("/autograder/source/autograder/*/test_*.py"),
    "source_mode": oct(os.stat("/autograder/source").st_mode & 0o777),
}))
"""


@pytest.mark.parametrize("which", ["grader", "engine"])
def test_the_image_holds_no_solution_and_runs_python_outside_root(which):
    done = container(
        "/opt/course/venv/bin/python", "-c", PROBE, mounts={}, image=IMAGE if which == "grader" else ENGINE
    )
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout)
    assert facts["notebooks"] == [], f"the image holds a source (solution) notebook: {facts['notebooks']}"
    assert not facts["python"].startswith("/root/"), (
        f"the interpreter {facts['python']} is under /root, which the sandbox's uids cannot reach"
    )
    assert facts["source_mode"] == "0o700", (
        f"/autograder/source (hidden tests, stand-ins) should be root's only, not {facts['source_mode']}"
    )
    if which == "grader":
        assert facts["hidden_tests"], "the grader image should hold the assignment's hidden tests"
    else:
        assert facts["hidden_tests"] == [], f"the engine image must hold no hidden test: {facts['hidden_tests']}"
