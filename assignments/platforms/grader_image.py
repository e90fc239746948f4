"""The grader image's build context (``course image <assignment>``): one folder that ``podman build`` or
``docker build`` turns into the image that grades that assignment on Gradescope, PrairieLearn, any
container host and Kubernetes (docs/how-to/grader-image.md).

The folder holds ``Containerfile`` and ``course`` from the repository's ``image/`` and, under ``source/``,
the assignment's Gradescope bundle unpacked (``gradescope_bundle.build_autograder_zip``): what the image
grades with is exactly what the zip ships, the locks included, and never a solution notebook. Its
``engine`` target leaves the assignment out (a public registry may hold it); ``prairielearn/`` beside
is a PrairieLearn question to copy into a course's ``questions/``: ``info.json`` and ``question.html``
(``platforms.prairielearn.question``) and ``tests/`` holding the assignment, from which ``course prairielearn``
grades with that image (``platforms.prairielearn.runner.QUESTION_COURSE``).
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path

from assignments.course import REPO, Assignment
from assignments.platforms.gradescope.bundle import build_autograder_zip
from assignments.platforms.prairielearn.question import IMAGE_PLACEHOLDER, write_question_files
from assignments.platforms.prairielearn.runner import QUESTION_COURSE

IMAGE_DIR = REPO / "image"
CONTEXT_FILES = ("Containerfile", "course")  # from image/, beside source/
PRAIRIELEARN = "prairielearn"  # beside source/: the PrairieLearn question (info.json, question.html, tests/)
# The bundle's parts that make it one assignment's grader (the rest is the grader and the locks).
ASSIGNMENT_PARTS = ("autograder", "release", "source")


def write_context(assignment: Assignment, out: Path, prairielearn_image: str = IMAGE_PLACEHOLDER) -> Path:
    """Write the build context of ``assignment``'s grader image to ``out`` (replacing what was there), and
    the PrairieLearn question whose info.json names ``prairielearn_image``; returns ``out``."""
    out = Path(out)
    source, question = out / "source", out / PRAIRIELEARN
    for folder in (source, question):
        if folder.exists():
            shutil.rmtree(folder)
    source.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="course-image-") as folder:
        archive = build_autograder_zip(assignment, Path(folder) / f"{assignment.name}.zip")
        with zipfile.ZipFile(archive) as zipped:
            for info in zipped.infolist():
                targets = [source / info.filename]
                if info.filename.split("/")[0] in ASSIGNMENT_PARTS:
                    targets.append(question / "tests" / QUESTION_COURSE / info.filename)
                for target in targets:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(zipped.read(info))
                    target.chmod((info.external_attr >> 16) & 0o777 or 0o644)
    for name in CONTEXT_FILES:
        shutil.copy2(IMAGE_DIR / name, out / name)
    write_question_files(assignment.name, assignment.title, question, image=prairielearn_image)
    return out
