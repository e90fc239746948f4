"""The PrairieLearn question that grades one assignment: ``info.json``, ``question.html`` and ``tests/``
(``course image`` writes it as ``prairielearn/`` beside the image's build context; copy it into the
PrairieLearn course as ``questions/<name>/``).

PrairieLearn's own facts, as its repository states them (PrairieLearn/PrairieLearn at
88fb8556a7a1768e2082736be9095241b11238d7):

- a grading job's container gets a CPU quota of 90,000 µs per 100,000 µs period, 0.9 of one CPU, and
  2 GiB of memory without swap (``apps/grader-host/src/lib/config.ts``: ``graderDockerCpuQuota``,
  ``graderDockerCpuPeriod``, ``graderDockerMemory``);
- ``externalGradingOptions.timeout`` defaults to 30 s and is cut to 600 s when larger
  (``apps/prairielearn/src/lib/config.ts``, ``externalGradingMaximumTimeout``; docs/externalGrading.md);
  when it runs out the host kills the container and reads no results.json at all
  (``apps/grader-host/src/index.ts``): the student gets "did not complete within the time limit" and no
  score or feedback;
- ``info.json`` follows ``apps/prairielearn/src/schemas/schemas/infoQuestion.json`` (``uuid``, ``type``,
  ``title`` and ``topic`` are required; nothing else may appear at the top level);
- ``pl-file-upload`` takes at most 5 MB per answer (``PRAIRIELEARN_UPLOAD_BYTES`` in
  ``runner``, where an upload over it is answered).

So the timeout is derived here from the grader's own limits (``job_timeout``), never typed: the
submission's wall-clock ceiling (``Limits.total_wall_timeout``, from its first kernel's start) plus the
grader's own work around it, at 0.9 CPU. A slow notebook then meets the grader's ceiling first, and the
student reads which test ran out of time in a results.json that exists.
"""

from __future__ import annotations

import json
import math
import uuid
from pathlib import Path

from assignments.escaping import html_text
from assignments.grading.sandbox.limits import Limits

# The grading host's container (see above): 0.9 of one CPU, the longest timeout it accepts.
CPUS = 0.9
MEMORY_MB = 2048  # apps/grader-host/src/lib/config.ts, graderDockerMemory (2 GiB, no swap)
MAX_TIMEOUT_S = 600
# CPU seconds the grader process spends outside the submission's wall-clock window: starting Python and
# importing torch and the grader, reading and checking the upload, restoring the notebook's locked cells,
# and after the window closes, failing the tests still to run and writing results.json. Measured at 3.9 to
# 5.1 s for the three assignments' references at half a CPU (benchmarks/results/grade_class_half_cpu.json,
# "grader_cpu_s", imports included). Twelve times that: a CPU quota caps a container, it reserves nothing,
# and a grading host running several jobs gives each less than its 0.9 when they all compute at once.
GRADER_OWN_CPU_S = 60.0
TIMEOUT_STEP_S = 10  # the timeout is rounded up to a multiple of this

IMAGE_PLACEHOLDER = "YOUR-DOCKERHUB-ACCOUNT/course-grader:engine"
ENTRYPOINT = "/usr/local/bin/course prairielearn {assignment}"  # image/course, installed by image/Containerfile
TOPIC = "Autograded notebooks"
UUID_NAMESPACE = uuid.UUID("6f1c1d3e-5b0e-4c53-9a43-8d0c4b1e7a10")  # this project's; names a question per assignment


def job_timeout(limits: Limits | None = None) -> int:
    """Seconds for ``externalGradingOptions.timeout``: the submission's wall-clock ceiling plus the grader's
    own CPU work at PrairieLearn's 0.9 CPU, rounded up to ``TIMEOUT_STEP_S``. ValueError where that passes
    PrairieLearn's 600 s (the limits must shrink), or where the ceiling would not let a kernel use its CPU
    budget at 0.9 CPU (the student's budget would be a promise PrairieLearn cannot keep)."""
    limits = limits or Limits()
    if limits.total_wall_timeout * CPUS < limits.total_timeout:
        raise ValueError(
            f"the submission's wall-clock ceiling ({limits.total_wall_timeout:g} s) gives less than its "
            f"{limits.total_timeout:g} s of CPU time at PrairieLearn's {CPUS:g} CPU; raise total_wall_factor"
        )
    seconds = limits.total_wall_timeout + GRADER_OWN_CPU_S / CPUS
    timeout = int(math.ceil(seconds / TIMEOUT_STEP_S) * TIMEOUT_STEP_S)
    if timeout > MAX_TIMEOUT_S:
        raise ValueError(
            f"grading may take {timeout} s at {CPUS:g} CPU, more than the {MAX_TIMEOUT_S} s PrairieLearn allows "
            f"a job; lower Limits.total_timeout"
        )
    return timeout


def question_uuid(assignment: str) -> str:
    """The same UUID every time a question is written for ``assignment``: PrairieLearn tracks a question
    (and the students' submissions to it) by its UUID, so a rewritten folder must keep it."""
    return str(uuid.uuid5(UUID_NAMESPACE, assignment))


def notebook_name(assignment: str) -> str:
    return f"{assignment}.ipynb"


def info_json(assignment: str, title: str, image: str = IMAGE_PLACEHOLDER, limits: Limits | None = None) -> dict:
    """The question's ``info.json`` (PrairieLearn's infoQuestion schema)."""
    return {
        "uuid": question_uuid(assignment),
        "type": "v3",
        "title": title,
        "topic": TOPIC,
        "tags": ["notebook", "autograded"],
        "gradingMethod": "External",
        "singleVariant": True,
        "partialCredit": True,
        "externalGradingOptions": {
            "image": image,
            "entrypoint": ENTRYPOINT.format(assignment=assignment),
            "timeout": job_timeout(limits),
        },
    }


def question_html(assignment: str, title: str) -> str:
    """The page students see: what to upload (one notebook, by its name, through ``pl-file-upload``) and,
    once graded, PrairieLearn's results element. The title is the course's, escaped all the same."""
    name = html_text(notebook_name(assignment))
    return (
        "<pl-question-panel>\n"
        f"  <p><strong>{html_text(title)}</strong></p>\n"
        f"  <p>Upload your completed notebook <code>{name}</code> (File &gt; Download &gt; Download .ipynb).\n"
        "  PrairieLearn takes files of at most 5 MB: if yours is larger, clear its outputs\n"
        "  (Edit &gt; Clear all outputs) and download it again. The hidden tests score the autograded\n"
        "  questions; written answers are graded by hand elsewhere.</p>\n"
        f'  <pl-file-upload file-names="{name}"></pl-file-upload>\n'
        "</pl-question-panel>\n"
        "\n"
        "<pl-submission-panel>\n"
        "  <pl-external-grader-results></pl-external-grader-results>\n"
        "</pl-submission-panel>\n"
    )


def write_question_files(
    assignment: str, title: str, folder: Path, image: str = IMAGE_PLACEHOLDER, limits: Limits | None = None
) -> list[Path]:
    """``info.json`` and ``question.html`` into the question ``folder`` (its ``tests/`` is the grader
    image's to write: ``grader_image.write_context``); returns the paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    info, page = folder / "info.json", folder / "question.html"
    info.write_text(json.dumps(info_json(assignment, title, image, limits), indent=2) + "\n", encoding="utf-8")
    page.write_text(question_html(assignment, title), encoding="utf-8")
    return [info, page]
