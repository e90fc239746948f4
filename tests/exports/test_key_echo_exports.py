"""No answer-key text in any export (issue 23, item 1), in namespace mode and in the forced fallback.

A class of two goes through the real pipeline (Canvas zip, ``grade_class``, every export): the reference,
and a student whose kernel keeps the stand-ins it receives and sends their text back as every value the
tests look at (tests/fixtures/key_echo.py). Then every file written (records, Gradescope results.json,
Canvas CSV, nbgrader's CSV, feedback, class report) is searched for any 20-character run of a
``stand_ins.py`` line that the grader's own code and tests do not also contain. Twenty, because a message
shows at most ``kernel_text.KERNEL_RUN_CHARS`` (16) kernel-chosen characters in a row.
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pytest

from assignments.course import REPO, default
from assignments.demo import students as demo_class
from assignments.exports import nbgrader_gradebook
from assignments.runs.folder import Run
from assignments.workflow import export, grade_class
from tests.fixtures import fallback, key_echo
from tests.helpers import isolation_unavailable

# One worker grades both modes' classes: with the tests spread over two workers, each would build the
# module's fixture again (about 40 s a mode).
pytestmark = [pytest.mark.course, pytest.mark.xdist_group("key_echo")]

A = "transformers"
RUN = 20
# Tests whose messages used to quote a raw reply value: the echo must make each of them fail. (The block and
# MiniBERT structure tests no longer read structure from replies: they load the grader's weights and compare
# outputs, so an echo fails them as any wrong answer does, or not at all.)
QUOTING_TESTS = {"test_mha_parameters", "test_bert_frozen_head_learns"}


def squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def grader_text() -> str:
    """Everything the grader itself may write: its package and the hidden tests (stand-ins excluded)."""
    files = [*(REPO / "assignments").rglob("*.py"), *(REPO / "autograder" / A).glob("*.py")]
    return squeeze("\n".join(p.read_text(encoding="utf-8") for p in files if p.name != "stand_ins.py"))


def key_runs() -> set[str]:
    """Every RUN-character run of a stand_ins.py line that no grader text contains."""
    ours = grader_text()
    runs = set()
    for line in (REPO / "autograder" / A / "stand_ins.py").read_text(encoding="utf-8").splitlines():
        line = squeeze(line.strip())
        runs |= {line[i : i + RUN] for i in range(len(line) - RUN + 1)}
    return {run for run in runs if run not in ours}


def strings(value):
    """Every string inside a parsed JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def readable(path: Path) -> str:
    """The text of an export as a person would read it: JSON strings decoded, HTML entities and Markdown
    escapes undone, whitespace runs squeezed."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".json":
        raw = "\n".join(strings(json.loads(raw)))
    return squeeze(html.unescape(raw).replace("\\", ""))


def leaks(text: str, runs: set[str]) -> list[str]:
    return sorted(run for run in runs if run in text)


def make_gradebook(root: Path) -> str:
    """An nbgrader course whose gradebook knows the assignment's graded cells, as `course release` leaves it."""
    root.mkdir(parents=True)
    (root / "nbgrader_config.py").write_text(f"c = get_config()\nc.CourseDirectory.root = {str(root)!r}\n")
    db = f"sqlite:///{root / 'gradebook.db'}"
    with nbgrader_gradebook.open_gradebook(db) as gb:
        gb.update_or_create_assignment(A)
        gb.update_or_create_notebook(A, A)
        for question in default().assignment(A).questions:
            kind = "code" if question.kind == "autograded" else "markdown"
            gb.update_or_create_grade_cell(question.grade_id, A, A, max_score=question.points, cell_type=kind)
            if kind == "markdown":
                gb.update_or_create_solution_cell(question.grade_id, A, A)
    return db


@pytest.fixture(scope="module", params=["namespaces", "no-namespaces"])
def graded_class(request, tmp_path_factory):
    """(records, every exported file) for the reference and the key-echoing student."""
    if request.param == "no-namespaces" and os.geteuid() != 0:
        isolation_unavailable(fallback.ROOT_ONLY)
    folder = tmp_path_factory.mktemp(f"echo-{request.param}")
    reference = demo_class.filled_release(default().assignment(A))
    names = demo_class.write_canvas_zip(
        default().assignment(A), {"reference": reference, "echo": key_echo.echoing(reference)}, folder / "canvas.zip"
    )
    who = {name.split("_")[1]: student for student, name in names.items()}  # Canvas user id -> student
    with fallback.mode(request.param):
        records = grade_class(default().assignment(A), folder / "canvas.zip", folder / "out", workers=2)
    db = make_gradebook(folder / "course")
    export(Run(folder / "out", course=folder / "course"), default().assignment(A), db_url=db)
    files = sorted(
        p for p in (folder / "out").rglob("*") if p.is_file() and p.suffix in {".json", ".csv", ".md", ".html"}
    )
    return {who[r.student]: r for r in records}, files


def test_the_runs_searched_for_would_catch_the_stand_ins():
    runs = key_runs()
    text = squeeze((REPO / "autograder" / A / "stand_ins.py").read_text(encoding="utf-8"))
    assert len(runs) > 500 and len(leaks(text, runs)) == len(runs)


def test_the_echo_fails_the_tests_that_quoted_reply_values_and_the_reference_keeps_full_marks(graded_class):
    records, _ = graded_class
    reference, echo = records["reference"], records["echo"]
    assert reference.autograded_points == reference.autograded_max, [
        (t.name, t.message) for q in reference.questions for t in q.tests if t.outcome != "passed"
    ]
    failed = {t.name for q in echo.questions for t in q.tests if t.outcome != "passed"}
    assert QUOTING_TESTS <= failed, f"the echo did not reach {QUOTING_TESTS - failed}"


def test_no_export_carries_answer_key_text(graded_class):
    _, files = graded_class
    runs = key_runs()
    kinds = {p.parent.name for p in files}
    assert {"results", "gradescope-preview", "canvas", "nbgrader", "feedback"} <= kinds, kinds
    found = {f"{p.parent.name}/{p.name}": leaks(readable(p), runs) for p in files}
    assert not any(found.values()), {name: runs[:3] for name, runs in found.items() if runs}
