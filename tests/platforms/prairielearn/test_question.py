"""The PrairieLearn question that `course image` writes (assignments/platforms/prairielearn/question.py), checked against
PrairieLearn's own rules, and the entry point run as PrairieLearn's grading host runs it (issue #45, item 5).

- **schema**: info.json validates against PrairieLearn's published `infoQuestion.json` (vendored in
  tests/fixtures/prairielearn_schemas/, with the commit it came from), and question.html holds a
  `pl-file-upload` for the assignment's notebook (only the attributes its docs list) and the results element.
- **timeout**: info.json's `externalGradingOptions.timeout` is derived from the grader's limits
  (`job_timeout`), never above PrairieLearn's 600 s, and `course prairielearn --print-timeout` prints it.
- **quota**: the generated question's job, graded by `course prairielearn` inside a cgroup of 0.9 CPU and
  2 GiB (PrairieLearn's grader-host defaults): the reference gets its results.json within the info.json
  timeout; a notebook that sleeps and spins, graded under small limits, gets a results.json that says its
  time ran out, within the timeout derived from those same limits. The cgroup needs root (skipped
  elsewhere, failed with COURSE_REQUIRE_ISOLATION=1).
- **5 MB**: an upload over PrairieLearn's cap is `gradable: false` and says so; the cap is exact.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import nbformat
import pytest

from assignments.cli import main as course
from assignments.course import REPO
from assignments.grading.sandbox.limits import Limits
from assignments.platforms import container_limits
from assignments.platforms.grader_image import PRAIRIELEARN, write_context
from assignments.platforms.gradescope.runner import UploadRefused, read_upload
from assignments.platforms.prairielearn import question as prairielearn_question
from assignments.platforms.prairielearn import runner as prairielearn_runner
from tests.fixtures import toy
from tests.helpers import needs_isolation

SCHEMAS = Path(__file__).parents[2] / "fixtures" / "prairielearn_schemas"

NO_CGROUP = container_limits.unavailable()
# pl-file-upload's attributes (PrairieLearn docs/elements/pl-file-upload.md, "Customizations").
FILE_UPLOAD_ATTRIBUTES = {"file-names", "file-patterns", "optional-file-names", "optional-file-patterns"}
# A notebook whose answers never finish: add sleeps (a kernel that waits: the wall-clock ceilings stop it),
# and the scale cell spins before defining scale (a kernel that computes: the CPU budgets stop it).
SLEEPS = "def add(a, b):\n    import time\n    time.sleep(3600)\n"
SPINS = "while True:\n    pass\n"
SMALL = Limits(cell_timeout=4, call_timeout=4, total_timeout=8, startup_timeout=60, max_restarts=1)


@pytest.fixture(scope="module")
def question(tmp_path_factory) -> Path:
    """The toy's PrairieLearn question as `course image` writes it (the toy with an evidence cell, so its
    written question names one: a question folder holds no source notebook)."""
    folder = tmp_path_factory.mktemp("question")
    the_toy = toy.build(folder / "course", evidence=True)
    shutil.copy2(REPO / "pyproject.toml", the_toy.folder / "pyproject.toml")  # the bundle needs the course's
    write_context(the_toy.assignment, folder / "context", prairielearn_image="example/grader:engine")
    return folder / "context" / PRAIRIELEARN


def job_from(question: Path, folder: Path, upload: bytes) -> Path:
    """A PrairieLearn job as its grading host lays it out (docs/externalGrading.md): the question's tests/,
    the upload in student/, the question's data."""
    job = folder / "grade"
    shutil.copytree(question / "tests", job / "tests")
    (job / "student").mkdir(parents=True)
    (job / "student" / f"{toy.NAME}.ipynb").write_bytes(upload)
    (job / "data").mkdir()
    (job / "data" / "data.json").write_text(json.dumps({"params": {}, "submitted_answers": {}}))
    return job


def reference(question: Path) -> bytes:
    return nbformat.writes(toy.load(question.parent.parent / "course").reference()).encode()


# ---------------------------------------------------------------- the folder


def test_info_json_validates_against_prairielearns_schema_with_the_derived_timeout(question):
    schema = json.loads((SCHEMAS / "infoQuestion.json").read_text())
    info = json.loads((question / "info.json").read_text())
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in validator.iter_errors(info)]
    assert not errors, f"info.json breaks PrairieLearn's infoQuestion schema: {errors}"
    options = info["externalGradingOptions"]
    assert info["gradingMethod"] == "External" and options["image"] == "example/grader:engine", info
    assert options["entrypoint"] == f"/usr/local/bin/course prairielearn {toy.NAME}", options
    assert options["timeout"] == prairielearn_question.job_timeout() <= prairielearn_question.MAX_TIMEOUT_S, options
    assert info["uuid"] == prairielearn_question.question_uuid(toy.NAME), "a rewritten question keeps its UUID"
    bad = {**info, "externalGradingOptions": {**options, "timeout": "520"}}
    assert list(validator.iter_errors(bad)), "the vendored schema should refuse a timeout that is no integer"


class _Elements(HTMLParser):
    """(tag, attributes, enclosing tags) of every element of a page."""

    def __init__(self):
        super().__init__()
        self.found, self.open = [], []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs), tuple(self.open)))
        self.open.append(tag)

    def handle_endtag(self, tag):
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag) :]


def test_question_html_asks_for_the_notebook_by_name_and_shows_the_results(question):
    page = _Elements()
    page.feed((question / "question.html").read_text())
    uploads = [(attrs, inside) for tag, attrs, inside in page.found if tag == "pl-file-upload"]
    assert len(uploads) == 1, "one pl-file-upload (PrairieLearn's 5 MB cap is per answer, whatever the elements)"
    attrs, inside = uploads[0]
    assert attrs == {"file-names": f"{toy.NAME}.ipynb"} and set(attrs) <= FILE_UPLOAD_ATTRIBUTES, attrs
    assert "pl-question-panel" in inside, "the upload belongs in the question panel"
    results = [inside for tag, _, inside in page.found if tag == "pl-external-grader-results"]
    assert results and "pl-submission-panel" in results[0], "the grader's results go in the submission panel"
    assert {t for t, *_ in page.found} <= {
        "pl-question-panel",
        "pl-submission-panel",
        "pl-file-upload",
        "pl-external-grader-results",
        "p",
        "strong",
        "code",
    }


def test_a_hostile_title_reaches_question_html_as_text():
    title = '<script>alert(1)</script> & "quoted" <img src=x onerror=alert(2)>'
    page = prairielearn_question.question_html(toy.NAME, title)
    assert "<script>" not in page and "<img" not in page and "&lt;script&gt;" in page, page


def test_the_question_folder_holds_no_source_notebook_or_solution(question):
    names = [p.relative_to(question).as_posix() for p in question.rglob("*") if p.is_file()]
    assert not [n for n in names if n.startswith("tests/course/source/") and n.endswith(".ipynb")], names
    assert not [n for n in names if "solution" in n.lower()], names
    assert {"info.json", "question.html"} <= set(names), names


# ---------------------------------------------------------------- the timeout


def test_the_timeout_is_the_graders_ceiling_plus_its_own_work_at_point_nine_cpu(capsys):
    limits = Limits()
    expected = limits.total_wall_timeout + prairielearn_question.GRADER_OWN_CPU_S / prairielearn_question.CPUS
    timeout = prairielearn_question.job_timeout(limits)
    assert expected <= timeout < expected + prairielearn_question.TIMEOUT_STEP_S, (timeout, expected)
    assert timeout > 300, "the old documented 300 s was below the grader's own 450 s ceiling"
    assert limits.total_wall_timeout * prairielearn_question.CPUS >= limits.total_timeout, (
        "at 0.9 CPU the wall-clock ceiling must still let a kernel use its whole CPU budget"
    )
    with pytest.raises(ValueError, match="600 s PrairieLearn allows"):
        prairielearn_question.job_timeout(Limits(total_timeout=400))
    with pytest.raises(ValueError, match="raise total_wall_factor"):
        prairielearn_question.job_timeout(Limits(total_wall_factor=1.0))
    assert course(["prairielearn", "--print-timeout"]) == 0
    assert capsys.readouterr().out.strip() == str(timeout), "the command prints the same derived value"


# ---------------------------------------------------------------- PrairieLearn's 5 MB


def test_an_upload_over_prairielearns_5_mb_is_not_gradable_and_says_why(question, tmp_path, capsys):
    notebook = nbformat.reads(reference(question).decode(), as_version=4)
    notebook.metadata["padding"] = "x" * prairielearn_runner.PRAIRIELEARN_UPLOAD_BYTES  # outputs, as it were
    job = job_from(question, tmp_path, nbformat.writes(notebook).encode())
    began = time.monotonic()
    assert prairielearn_runner.main(toy.NAME, job) == 0, capsys.readouterr().out
    data = json.loads((job / "results" / "results.json").read_text())
    assert data["gradable"] is False and "score" not in data, data
    assert "more than the 5 MB PrairieLearn accepts for an upload" in data["format_errors"][0], data
    assert "Clear all outputs" in data["format_errors"][0], "the message says what to do"
    assert time.monotonic() - began < 30, "refused before any kernel starts"


def test_the_5_mb_cap_is_exact(tmp_path):
    cap = prairielearn_runner.PRAIRIELEARN_UPLOAD_BYTES
    (tmp_path / "at.ipynb").write_bytes(b"x" * cap)
    (tmp_path / "over.ipynb").write_bytes(b"x" * (cap + 1))
    assert len(read_upload(tmp_path / "at.ipynb", tmp_path, cap)) == cap
    with pytest.raises(UploadRefused, match="5.0 MB, more than the 5 MB"):
        read_upload(tmp_path / "over.ipynb", tmp_path, cap, prairielearn_runner.UPLOAD_LIMIT_NAME)


# ---------------------------------------------------------------- under PrairieLearn's quota

GRADE_WITH_LIMITS = (
    "import json, sys\nfrom pathlib import Path\nfrom assignments.platforms.prairielearn.runner import main\n"
    "from assignments.grading.sandbox.limits import Limits\n"
    "sys.exit(main(sys.argv[1], Path(sys.argv[2]), Limits(**json.loads(sys.argv[3]))))\n"
)


def graded_under_prairielearns_quota(argv: list[str]) -> tuple[int, float, float, str]:
    """(exit status, wall seconds, CPU seconds, output) of ``argv`` in a cgroup of 0.9 CPU and 2 GiB, with no
    cgroup of the sandbox's own below it (a Docker container's cgroup file system is read-only)."""
    from assignments.grading.sandbox.cgroups import NO_CGROUP_ENV

    env = {**os.environ, "PYTHONPATH": str(REPO), NO_CGROUP_ENV: "1"}
    with container_limits.Cgroup(cpu=prairielearn_question.CPUS, memory_mb=prairielearn_question.MEMORY_MB) as group:
        began = time.monotonic()
        process = group.popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        output, _ = process.communicate(timeout=prairielearn_question.MAX_TIMEOUT_S)
        return process.returncode, time.monotonic() - began, group.cpu_seconds(), output


@needs_isolation(NO_CGROUP and f"no cgroup here: {NO_CGROUP}")
def test_the_reference_gets_its_results_within_the_questions_timeout_at_point_nine_cpu(question, tmp_path):
    job = job_from(question, tmp_path, reference(question))
    timeout = json.loads((question / "info.json").read_text())["externalGradingOptions"]["timeout"]
    argv = [sys.executable, "-m", "assignments", "prairielearn", toy.NAME, "--job", str(job)]
    status, wall, cpu, output = graded_under_prairielearns_quota(argv)
    results = job / "results" / "results.json"
    assert status == 0 and results.is_file(), f"exit {status}, no results.json:\n{output[-3000:]}"
    assert wall < timeout, f"{wall:.0f} s at 0.9 CPU: PrairieLearn would have killed the job at {timeout} s"
    assert cpu <= prairielearn_question.CPUS * wall + 0.5, f"the quota did not hold: {cpu:.1f} s CPU in {wall:.1f} s"
    data = json.loads(results.read_text())
    assert data["gradable"] is True and data["score"] == 1.0, data
    # A question folder has no source notebook; the release names the evidence cells all the same.
    assert "could not be read" not in data["output"], data["output"]
    assert "evidence for scale_written: cell scale_run" in data["output"], data["output"]


@needs_isolation(NO_CGROUP and f"no cgroup here: {NO_CGROUP}")
def test_a_notebook_that_never_finishes_gets_results_within_the_timeout_its_limits_derive(question, tmp_path):
    notebook = toy.load(question.parent.parent / "course").reference()
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id == "add":
            cell.source = SLEEPS
        elif grade_id == "scale":
            cell.source = SPINS + cell.source
    job = job_from(question, tmp_path, nbformat.writes(notebook).encode())
    timeout = prairielearn_question.job_timeout(SMALL)
    limits = {name: getattr(SMALL, name) for name in ("cell_timeout", "call_timeout", "total_timeout")}
    limits.update(startup_timeout=SMALL.startup_timeout, max_restarts=SMALL.max_restarts)
    argv = [sys.executable, "-c", GRADE_WITH_LIMITS, toy.NAME, str(job), json.dumps(limits)]
    status, wall, cpu, output = graded_under_prairielearns_quota(argv)
    results = job / "results" / "results.json"
    assert status == 0 and results.is_file(), f"exit {status}, no results.json:\n{output[-3000:]}"
    assert wall < timeout, f"{wall:.0f} s at 0.9 CPU, past the {timeout} s derived from the same limits"
    # What the derivation assumes, whatever else the machine runs: the kernel's CPU budget and the grader's own.
    allowed = SMALL.total_timeout + prairielearn_question.GRADER_OWN_CPU_S
    assert cpu < allowed, f"the job used {cpu:.0f} s of CPU time, more than the {allowed:g} s the timeout allows for"
    data = json.loads(results.read_text())
    assert data["gradable"] is True and data["score"] == 0.0, data
    said = json.dumps(data)
    assert "time budget" in said or "did not finish" in said, f"the student should read that time ran out: {said}"
