"""The Gradescope autograder bundle, run end to end in a Gradescope-shaped tree under a temporary root.

setup.sh runs once with AUTOGRADER_PYTHON pointing at this interpreter, so it only builds a venv that
inherits the installed dependencies (no download, never a CUDA torch); run_autograder then grades
uploads exactly as Gradescope would, with AUTOGRADER_ROOT in place of /autograder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assignments.course import REPO, default
from assignments.exports import gradescope
from assignments.platforms.gradescope import bundle as gradescope_bundle
from assignments.settings import Settings
from tests.fixtures import gradescope_tree
from tests.fixtures.gradescope_tree import FOLDER, Link, unpack

pytestmark = pytest.mark.course

A = "transformers"
HW = default().assignment(A)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    """The unpacked bundle after setup.sh: its root, ready for one submission at a time."""
    root = tmp_path_factory.mktemp("autograder")
    unpack(gradescope_bundle.build_autograder_zip(HW, root.parent / f"{A}.zip"), root)
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    done = subprocess.run(["bash", str(root / "setup.sh")], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"setup.sh failed:\n{done.stdout}\n{done.stderr}"
    return root


def grade_upload(root: Path, files: dict) -> dict:
    return gradescope_tree.grade_upload(root, files, A)


def notebook_bytes(kind: str, assignment: str = A) -> bytes:
    return next((REPO / kind / assignment).glob("*.ipynb")).read_bytes()


def test_bundle_holds_the_release_and_a_manifest_never_the_solution_source(bundle):
    assert not list((bundle / "source" / "source").rglob("*.ipynb")), "the solution source is in the bundle"
    manifest = json.loads((bundle / "source" / "source" / A / "grading.json").read_text())
    assert manifest["questions"] and manifest["shortcut_rules"], manifest
    assert (bundle / "source" / "release" / A / f"{A}.ipynb").is_file()


def test_bundle_grades_the_reference_notebook_with_full_marks(bundle):
    data = grade_upload(bundle, {f"{A}.ipynb": notebook_bytes("source")})
    full = data["extra_data"]["autograded_max"]
    assert full > 0 and data["tests"], f"the reference was not graded at all:\n{data['output']}"
    assert data["score"] == pytest.approx(full), (
        f"reference should score {full} but scored {data['score']}:\n{data['output']}"
    )


def test_bundle_grades_the_blank_release_with_zero(bundle):
    data = grade_upload(bundle, {f"{A}.ipynb": notebook_bytes("release")})
    assert data["score"] == 0, f"blank release should score 0 but scored {data['score']}"


def test_bundle_picks_the_lms_renamed_notebook_among_two(bundle):
    data = grade_upload(
        bundle, {f"smithj_1234_5678_{A}-1.ipynb": notebook_bytes("source"), "scratch.ipynb": notebook_bytes("release")}
    )
    full = data["extra_data"]["autograded_max"]
    assert data["score"] == pytest.approx(full), (
        f"the renamed reference should be graded (full marks {full}) but the score is {data['score']}:\n{data['output']}"
    )
    assert "several notebooks" in data["output"], "the student should be told which of two notebooks was graded"


# Each graded once for the module: a student with one mistake and a hostile one whose first answer cell ends
# its own kernel with os._exit (tests/fixtures/hostile/os_exit.py). The hostile one runs in
# `make rehearsal-previous` only (`make test` deselects `previous_runtime`): the standalone door's handling of
# os_exit is tested on every payload in tests/grading/doors/test_standalone.py. (A second mutant, on another
# question, was dropped for make test's time: the mutant tests already check every mutant's question in the
# same door.)
STUDENTS = ["one mutant", pytest.param("hostile os_exit", marks=pytest.mark.previous_runtime)]


def buggy_and_hostile_notebooks() -> dict[str, tuple[str, bytes]]:
    """label -> (what the student did, notebook bytes)."""
    from assignments.demo import students as demo_class
    from tests.fixtures import payloads
    from tests.helpers import notebook_bytes

    first = demo_class.pick_mutants(HW, 1)[0]
    hostile = payloads.by_name("os_exit")
    notebooks = {
        "one mutant": (first.name, demo_class.filled_release(HW, {first.replaces: first.code})),
        "hostile os_exit": (hostile.mistake, payloads.inject(demo_class.filled_release(HW), hostile, REPO)),
    }
    return {label: (what, notebook_bytes(nb)) for label, (what, nb) in notebooks.items()}


@pytest.fixture(scope="module")
def graded_by_both(bundle):
    """label -> (what, results.json, record): the student graded through run_autograder and through the
    standalone door, in this process (whose grader imports are then paid once), once for the module and
    only when a selected test asks for it."""
    from assignments.grading.doors.standalone import grade_submission

    uploads, graded = buggy_and_hostile_notebooks(), {}

    def grade(label):
        if label not in graded:
            what, notebook = uploads[label]
            data = grade_upload(bundle, {f"{A}.ipynb": notebook})
            graded[label] = what, data, grade_submission(HW, notebook, "student@example.edu")
        return graded[label]

    return grade


@pytest.mark.parametrize("student", STUDENTS)
def test_bundle_scores_a_buggy_or_hostile_submission_as_the_standalone_door_does(graded_by_both, student):
    what, data, door = graded_by_both(student)
    full = data["extra_data"]["autograded_max"]
    assert data["score"] == pytest.approx(door.autograded_points), (
        f"{student} ({what}): the bundle scored {data['score']} but the standalone door {door.autograded_points}"
    )
    assert 0 < data["score"] < full, f"{student} ({what}) should lose some points, not all: {data['score']} of {full}"
    if student.startswith("hostile"):
        assert "kernel restarted" in data["output"], (
            f"the student should read that the cell ending the kernel was skipped:\n{data['output']}"
        )


BAD_UPLOADS = {
    "no notebook": {"answers.txt": b"my answers"},
    "notebook of another assignment": {f"{A}.ipynb": notebook_bytes("source", "rnn_attention")},
    "60 MB notebook": {f"{A}.ipynb": b'{"cells": [], "x": "' + b"a" * (60 * 2**20) + b'"}'},
    "undecodable file": {f"{A}.ipynb": b"\xff\xfe\x00garbage\x80\x81"},
}


@pytest.mark.parametrize("upload", list(BAD_UPLOADS), ids=list(BAD_UPLOADS))
def test_bad_upload_scores_zero_with_a_message(bundle, upload):
    data = grade_upload(bundle, BAD_UPLOADS[upload])
    assert data["score"] == 0, f"{upload}: should score 0 but scored {data['score']}"
    assert "could not be graded" in data["output"], f"{upload}: the output should say why:\n{data['output']}"


# Uploads that are no regular file: each is refused before a kernel starts (a second or two each, so
# they run in `make test`). The link points outside the upload at a notebook worth full marks (what the
# solution source was, when the bundle still shipped it); followed as root, it would be graded.
FULL_MARKS_OUTSIDE = Link("../outside.ipynb", notebook_bytes("source"))
ODD_UPLOADS = {
    "notebook linked to a file outside the upload": {f"{A}.ipynb": FULL_MARKS_OUTSIDE},
    "folder named like the notebook": {f"{A}.ipynb": FOLDER},
}


@pytest.mark.parametrize("upload", list(ODD_UPLOADS), ids=list(ODD_UPLOADS))
def test_an_upload_that_is_no_regular_file_scores_zero_with_a_clear_message(bundle, upload):
    data = grade_upload(bundle, ODD_UPLOADS[upload])
    assert data["score"] == 0, f"{upload}: should score 0 but scored {data['score']}"
    assert "could not be graded" in data["output"] and "only a notebook file is graded" in data["output"], (
        f"{upload}: the student should read why:\n{data['output']}"
    )
    assert "tell course staff" not in data["output"], f"{upload}: the runner fell back to its crash message"


def test_a_linked_notebook_beside_a_real_file_is_passed_over_and_named(bundle):
    # The real file is another assignment's notebook, refused before any kernel starts: cheap, and its
    # message shows which of the two was taken although the link has the exact name.
    data = grade_upload(
        bundle, {f"{A}.ipynb": FULL_MARKS_OUTSIDE, "mine.ipynb": notebook_bytes("source", "rnn_attention")}
    )
    assert data["score"] == 0, f"the linked notebook must not be graded: {data['score']}"
    assert f"{A}.ipynb is a link" in data["output"] and "mine.ipynb does not hold" in data["output"], data["output"]


def test_hidden_test_visibility_is_one_course_setting(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.course]\ngradescope_test_visibility = "after_published"\n')
    assert Settings.read(tmp_path).gradescope_test_visibility == "after_published"
    pyproject.write_text('[tool.course]\ngradescope_test_visibility = "later"\n')
    with pytest.raises(ValueError, match="after_published"):
        _ = Settings.read(tmp_path).gradescope_test_visibility
    assert Settings.read(REPO).gradescope_test_visibility in gradescope.VISIBILITIES
