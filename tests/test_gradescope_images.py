"""Gradescope's real install, rehearsed for every Python the course supports (README: Grading on Gradescope).

Gradescope builds an autograder by running the zip's ``setup.sh`` as root on its base image, with that
image's ``python3`` (Ubuntu 22.04: 3.10, the default; 24.04: 3.12), then runs ``run_autograder`` once per
submission in a container without namespaces. Here, for each Python of ``[tool.course] pythons``
(pyenv's interpreter standing in for the image's), the zip is unpacked into a Gradescope-shaped tree,
``setup.sh`` does its real install (a venv of that Python and exactly that Python's lock, from the public
index alone; ``AUTOGRADER_BASE_PYTHON`` in place of apt's python3, which is all it skips), and
``run_autograder`` grades the reference, the blank release and a hostile upload in the sandbox's
no-namespace fallback, as on Gradescope; each results.json is checked against what it must say.

torch: ``setup.sh`` takes the CPU build from download.pytorch.org, which these machines cannot reach, so
``TORCH_INDEX_URL`` points at PyPI (override it to test the CPU index where it is reachable), whose torch
is the CUDA build: the lock's install then adds that build's CUDA libraries, which it loads even on a
machine without a GPU (what that costs in time and disk: ``.ci/run``, which plans the disk for it). One
Python's tree exists at a time, and is removed once its tests have run.

``make gradescope-images`` runs this module (CI: ``.ci/run``); ``make test`` leaves it out
(``tests/conftest.py``, the ``gradescope_images`` mark).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import pytest

from assignments.course import REPO
from assignments.gradescope import bundle as gradescope_bundle
from assignments.gradescope import lock as lockfile
from tests.fixtures import fallback, gradescope_tree, payloads
from tests.helpers import QUICKEST, notebook_bytes

pytestmark = pytest.mark.gradescope_images

A = QUICKEST
# Every supported Python (CI); COURSE_GRADESCOPE_PYTHONS="3.10 3.12" picks some, as for a quicker local run.
PYTHONS = os.environ.get("COURSE_GRADESCOPE_PYTHONS", "").split() or lockfile.supported_pythons()
SETUP_TIMEOUT_S = 1800
# One grading: Gradescope's own default timeout is 600 s at half a CPU; a loaded 2-core machine took over
# 300 s for one of these uploads.
GRADE_TIMEOUT_S = 900
# As on Gradescope, the sandbox has no namespaces there.
GRADESCOPE_ENV = {"COURSE_SANDBOX_NO_NAMESPACES": "1"}


def public_index_env(root: Path, interpreter: Path) -> dict:
    """setup.sh's environment: the public index alone (no machine-wide pip configuration, local wheel
    folders or mirrors, which Gradescope has none of), no cache (it would keep a second copy of the
    CUDA wheels), the interpreter named, torch from PyPI unless the caller chose an index."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PIP_") or key == "PIP_CERT"}
    env.pop("PYTHONPATH", None)
    return {
        **env,
        **GRADESCOPE_ENV,
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_CACHE_DIR": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "AUTOGRADER_ROOT": str(root),
        "AUTOGRADER_BASE_PYTHON": str(interpreter),
        "TORCH_INDEX_URL": os.environ.get("TORCH_INDEX_URL", "https://pypi.org/simple"),
    }


class PeakDisk:
    """The most disk the block took on the file system of ``path``: free space sampled every second."""

    def __init__(self, path: Path):
        self.path, self.before, self.least = path, shutil.disk_usage(path).free, None
        self._stop = threading.Event()

    def __enter__(self):
        self.least = self.before
        threading.Thread(target=self._sample, daemon=True).start()
        return self

    def _sample(self):
        while not self._stop.wait(1.0):
            self.least = min(self.least, shutil.disk_usage(self.path).free)

    def __exit__(self, *exc):
        self._stop.set()

    @property
    def peak_gb(self) -> float:
        return (self.before - self.least) / 1e9


def tree_gb(path: Path) -> float:
    return sum(f.lstat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 1e9


@pytest.fixture(scope="module")
def bundle_zip(tmp_path_factory) -> Path:
    return gradescope_bundle.build_autograder_zip(A, tmp_path_factory.mktemp("zip") / f"{A}.zip")


@pytest.fixture(scope="module", params=PYTHONS, ids=[f"python{p}" for p in PYTHONS])
def image(request, bundle_zip):
    """The tree after setup.sh's real install with Python ``request.param``: (its root, that Python)."""
    python = request.param
    interpreter = lockfile.find_interpreter(python)
    if interpreter is None:
        pytest.fail(f"no Python {python} here to rehearse its Gradescope image: pyenv install {python}")
    # Gradescope's /autograder is root's and others may pass through it (the venv must be reachable by
    # the kernels' uids); pytest's own temporary root is 0700.
    root = Path(tempfile.mkdtemp(prefix=f"course-gradescope-{python}-"))
    os.chmod(root, 0o755)
    try:
        gradescope_tree.unpack(bundle_zip, root)
        # The image's python3 lives under /usr on Gradescope; pyenv's is under /root here, which the
        # fallback's uids may pass through only while this grant holds.
        with fallback.searchable():
            started = time.monotonic()
            with PeakDisk(root) as disk:
                done = subprocess.run(
                    ["bash", str(root / "setup.sh")],
                    env=public_index_env(root, interpreter),
                    capture_output=True,
                    text=True,
                    timeout=SETUP_TIMEOUT_S,
                )
            took = time.monotonic() - started
            assert done.returncode == 0, (
                f"setup.sh failed on Python {python} (exit {done.returncode}):\n"
                f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
            )
            print(
                f"\nPython {python}: setup.sh took {took / 60:.1f} min; the tree holds {tree_gb(root):.1f} GB, "
                f"the disk's peak use while installing was {disk.peak_gb:.1f} GB"
            )
            yield root, python
    finally:
        shutil.rmtree(root, ignore_errors=True)


def release_notebook():
    return nbformat.read(next((REPO / "release" / A).glob("*.ipynb")), as_version=4)


UPLOADS = {
    "reference": lambda: next((REPO / "source" / A).glob("*.ipynb")).read_bytes(),
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
    probe = "import json; from pathlib import Path; from assignments.gradescope import lock; print(json.dumps(lock.drift(Path('.'))))"
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
