"""nbgrader configuration for this course (read by every `nbgrader` command run from this folder)."""

import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

COURSE_ROOT = Path(__file__).resolve().parent
c.CourseDirectory.root = str(COURSE_ROOT)
c.CourseDirectory.course_id = "nlp-transformers"

# Hidden-test regions call `assignments.grading.door.hidden_tests`; kernels started by nbgrader inherit
# this environment, so they can import the course package from the checkout.
os.environ["PYTHONPATH"] = os.pathsep.join(
    [str(COURSE_ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
)
if str(COURSE_ROOT) not in sys.path:
    sys.path.insert(0, str(COURSE_ROOT))
# Kernels started by nbgrader inherit the grading environment (assignments/grading/environment.py): offline
# Hugging Face libraries, no progress bars, and no accelerator, as in the standalone door.
from assignments.grading.environment import kernel_environment_for_nbgrader  # noqa: E402

os.environ.update(kernel_environment_for_nbgrader())

# Written answers carry their mark scheme in the answer cell itself (removed from the release).
c.ClearMarkScheme.enforce_metadata = False

# A torch or transformers warning (or a progress bar) on stderr must never zero a correct answer:
# the hidden-test call leaves the earned points as the cell's value, and errors still score 0.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"[\s\S]"

# A failing visible check must not zero a test cell whose hidden tests give partial credit: under
# autograde, visible checks report instead of raising (the standalone grader scores the same way).
# It runs first in the execution pass, after the sanitize pass restored the test cells from the source.
# Right after execution, HonestPoints replaces each hidden-test cell's result with the points the
# hidden-test call published (0 when there are none): nbgrader reads a non-numeric or missing result as
# full credit, and the student's kernel decides what it displays.
from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import (  # noqa: E402
    AssignLatePenalties,
    CheckCellMetadata,
    ClearOutput,
    DeduplicateIds,
    Execute,
    IgnorePattern,  # noqa: E402
    LimitOutput,
    OverwriteCells,
    OverwriteKernelspec,
    SaveAutoGrades,
)

# Written answers' evidence (assignments/grading/doors/nbgrader/evidence.py): KeepEvidence reads the submitted
# outputs of each written question's evidence cells before ClearOutput empties them; ShowEvidence puts
# them under the answer after execution (labelled as the student's own run) and marks the re-run's outputs.
from assignments.grading.doors.nbgrader.evidence import KeepEvidence, ShowEvidence  # noqa: E402
from assignments.grading.doors.nbgrader.preprocessors import HonestPoints, InformativeVisibleChecks  # noqa: E402

# The autograded notebook is what formgrader shows a TA and what feedback is made from: after the grades
# are saved, Inert (assignments/inert.py) makes it inert (Markdown through an allow-list, active outputs
# as text, metadata rebuilt); CheckCellMetadata then checks what it kept.
from assignments.inert import Inert  # noqa: E402

c.Autograde.sanitize_preprocessors = [
    KeepEvidence,
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    OverwriteCells,
    CheckCellMetadata,
]
c.Autograde.autograde_preprocessors = [
    InformativeVisibleChecks,
    Execute,
    HonestPoints,
    ShowEvidence,
    IgnorePattern,
    ClearMetadataPreprocessor,
    LimitOutput,
    SaveAutoGrades,
    AssignLatePenalties,
    Inert,
    CheckCellMetadata,
]

# Cell and notebook time limits for nbgrader's own execution (autograde and validate).
c.ExecutePreprocessor.timeout = 300
c.Execute.timeout = 300

# Feedback (`nbgrader generate_feedback`) shows hidden-test outcomes but never the hidden-test code that
# autograde restored into the test cells; Inert again, for an autograded notebook made before it ran there.
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor  # noqa: E402
from nbgrader.preprocessors import GetGrades  # noqa: E402

from assignments.grading.doors.nbgrader.feedback import HideHiddenTests  # noqa: E402

c.GenerateFeedback.preprocessors = [HideHiddenTests, Inert, GetGrades, CSSHTMLHeaderPreprocessor]
