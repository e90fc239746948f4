"""Gradescope's real install, rehearsed for every Python the course supports (docs/how-to/gradescope.md).

Gradescope builds an autograder by running the zip's ``setup.sh`` as root on its base image, with that
image's ``python3`` (Ubuntu 22.04: 3.10, the default; 24.04: 3.12), then runs ``run_autograder`` once per
submission in a container without namespaces. Here, for each Python of ``[tool.course] pythons``
(pyenv's interpreter standing in for the image's), ``fixtures/gradescope_install.py`` unpacks the zip into
a Gradescope-shaped tree and runs ``setup.sh``'s real install (a venv of that Python and exactly that
Python's lock, from the public index alone; ``AUTOGRADER_BASE_PYTHON`` in place of apt's python3, which is
all it skips), and ``run_autograder`` grades the reference, the blank release and a hostile upload in the sandbox's
no-namespace fallback, as on Gradescope; each results.json is checked against what it must say.

torch: ``setup.sh`` takes the CPU build from download.pytorch.org, which these machines cannot reach, so
``TORCH_INDEX_URL`` points at PyPI (override it to test the CPU index where it is reachable), whose torch
is the CUDA build: the lock's install then adds that build's CUDA libraries, which it loads even on a
machine without a GPU (what that costs in time and disk: ``.ci/run``, which plans the disk for it). A tree
installed by this module is removed once its Python's tests have run (by hand, ``-n 0``: one at a time).

``make gradescope-images`` runs this module on the real course; ``make platforms`` on the toy course
(``make gradescope-images-toy``, with the trees installed first by ``make gradescope-trees``). ``make test``
leaves it out (``tests/conftest.py``, the ``gradescope_images`` mark).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from assignments import locks as lockfile
from assignments.course import Course, default
from assignments.platforms.gradescope import bundle as gradescope_bundle
from tests.fixtures import gradescope_install, gradescope_tree, payloads
from tests.fixtures.gradescope_install import GRADESCOPE_ENV
from tests.helpers import QUICKEST, notebook_bytes

pytestmark = pytest.mark.gradescope_images

# The course and assignment whose zip is installed: by default this checkout's quickest assignment; `make
# platforms` names the toy course (`python -m tests.fixtures.toy`), whose gradings take seconds, not a minute.
COURSE = Course(Path(os.environ["COURSE_GRADESCOPE_ROOT"])) if os.environ.get("COURSE_GRADESCOPE_ROOT") else default()
A = os.environ.get("COURSE_GRADESCOPE_ASSIGNMENT", QUICKEST)
# Every supported Python by default; COURSE_GRADESCOPE_PYTHONS="3.10 3.12" picks some (`make platforms`:
# those two, the Pythons of Gradescope's Ubuntu 22.04 and 24.04 images).
PYTHONS = os.environ.get("COURSE_GRADESCOPE_PYTHONS", "").split() or lockfile.supported_pythons()
# Trees installed earlier from the same zip (`make gradescope-trees`, while `make platforms` builds the
# grader image): <folder>/python3.X. A tree from another zip, or none, is installed here and now.
TREES = os.environ.get("COURSE_GRADESCOPE_TREES", "")
# One grading: Gradescope's own default timeout is 600 s at half a CPU; a loaded 2-core machine took over
# 300 s for one of the real assignment's uploads.
GRADE_TIMEOUT_S = 900


@pytest.fixture(scope="module")
def bundle_zip(tmp_path_factory) -> Path:
    return gradescope_bundle.build_autograder_zip(COURSE.assignment(A), tmp_path_factory.mktemp("zip") / f"{A}.zip")


# One xdist group per Python: with workers (`make gradescope-images-toy`: `-n 2`, trees installed earlier),
# each grades one Python's uploads, and nothing installs a tree twice.
@pytest.fixture(
    scope="module",
    params=[pytest.param(p, marks=pytest.mark.xdist_group(f"python{p}"), id=f"python{p}") for p in PYTHONS],
)
def image(request, bundle_zip):
    """The tree after setup.sh's real install with Python ``request.param``: (its root, that Python)."""
    python = request.param
    earlier = Path(TREES) / f"python{python}" if TREES else None
    record = gradescope_install.installed_from(earlier, bundle_zip, python) if earlier else None
    if record is not None:
        print(f"\ninstalled earlier from this zip: {gradescope_install.describe(record)}")
        with gradescope_install.reachable_interpreter():
            yield earlier, python
        return
    # Gradescope's /autograder is root's and others may pass through it (the venv must be reachable by
    # the kernels' uids); pytest's own temporary root is 0700.
    root = Path(tempfile.mkdtemp(prefix=f"course-gradescope-{python}-"))
    try:
        try:
            record = gradescope_install.install(bundle_zip, python, root)
        except RuntimeError as error:
            pytest.fail(str(error))
        print(f"\n{gradescope_install.describe(record)}")
        with gradescope_install.reachable_interpreter():
            yield root, python
    finally:
        shutil.rmtree(root, ignore_errors=True)


def release_notebook():
    return COURSE.assignment(A).release_notebook()


UPLOADS = {
    "reference": lambda: COURSE.assignment(A).source_path.read_bytes(),
    "blank release": lambda: notebook_bytes(release_notebook()),
    # Forges scores every way it can (printed banners, a results.json in its folder, replies to the
    # grader's requests) on top of the blank release: it must still score 0.
    "hostile fake_score": lambda: notebook_bytes(payloads.inject(release_notebook(), payloads.by_name("fake_score"))),
}


def grade(image, upload: str) -> dict:
    root, _ = image
    files = {f"{A}.ipynb": UPLOADS[upload]()}
    return gradescope_tree.grade_upload(root, files, A, env=GRADESCOPE_ENV, timeout=GRADE_TIMEOUT_S)


def test_the_image_holds_exactly_its_pythons_lock(image):
    """Less the CUDA build's own libraries, which only PyPI's torch brings (Gradescope's CPU torch has none)."""
    root, python = image
    probe = "import json; from pathlib import Path; from assignments import locks; print(json.dumps(locks.drift(Path('.'))))"
    done = subprocess.run(
        [str(root / "venv" / "bin" / "python"), "-c", probe],
        cwd=root / "source",
        env={**os.environ, "PYTHONPATH": str(root / "source")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    drift = [line for line in json.loads(done.stdout) if not lockfile.CUDA_ONLY.match(line.split(":")[0])]
    assert drift == [], f"the Python {python} image differs from locks/python{python}.txt: {drift}"


def test_the_reference_scores_full_marks(image):
    data = grade(image, "reference")
    full = data["extra_data"]["autograded_max"]
    assert full > 0 and data["tests"], f"the reference was not graded at all on Python {image[1]}:\n{data['output']}"
    failed = [(t["name"], t["output"]) for t in data["tests"] if t["status"] != "passed"]
    assert data["score"] == pytest.approx(full) and not failed, (
        f"the reference should score {full} on Python {image[1]} but scored {data['score']}: {failed}"
    )


def test_the_blank_release_scores_zero(image):
    data = grade(image, "blank release")
    assert data["extra_data"]["status"] == "graded", f"the blank release was not graded:\n{data['output']}"
    assert data["score"] == 0 and all(t["status"] == "failed" for t in data["tests"]), (
        f"the blank release should score 0 on Python {image[1]} but scored {data['score']}"
    )


def test_a_hostile_upload_forging_its_score_scores_zero(image):
    data = grade(image, "hostile fake_score")
    assert data["extra_data"]["status"] == "graded", f"the hostile upload was not graded:\n{data['output']}"
    assert data["score"] == 0 and all(t["status"] == "failed" for t in data["tests"]), (
        f"a blank notebook forging its score scored {data['score']} on Python {image[1]}"
    )
