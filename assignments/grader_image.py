"""The grader image's build context (``course image <assignment>``): one folder that ``podman build`` or
``docker build`` turns into the image that grades that assignment on Gradescope, PrairieLearn, any
container host and Kubernetes (README, "The grader image").

The folder holds ``Containerfile`` and ``course`` from the repository's ``image/`` and, under ``source/``,
the assignment's Gradescope bundle unpacked (``gradescope_bundle.build_autograder_zip``): what the image
grades with is exactly what the zip ships, the locks included, and never a solution notebook.
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path

from .course import REPO
from .gradescope_bundle import build_autograder_zip

IMAGE_DIR = REPO / "image"
CONTEXT_FILES = ("Containerfile", "course")  # from image/, beside source/


def write_context(assignment: str, out: Path, repo: Path = REPO) -> Path:
    """Write the build context of ``assignment``'s grader image to ``out`` (replacing what was there);
    returns ``out``."""
    out = Path(out)
    source = out / "source"
    if source.exists():
        shutil.rmtree(source)
    source.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="course-image-") as folder:
        archive = build_autograder_zip(assignment, Path(folder) / f"{assignment}.zip", repo=repo)
        with zipfile.ZipFile(archive) as zipped:
            for info in zipped.infolist():
                target = source / info.filename
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(zipped.read(info))
                target.chmod((info.external_attr >> 16) & 0o777 or 0o644)
    for name in CONTEXT_FILES:
        shutil.copy2(IMAGE_DIR / name, out / name)
    return out
