"""The release pipeline: source/<a> -> release/<a> (students), solutions/<a> (staff), dist/lms/<a>.zip.

``course release [ASSIGNMENT...]`` (default: every assignment with a source notebook), per assignment:

0. the Colab link ``[tool.course] colab_url`` must be one students may have: not the shipped placeholder
   (only the demo's release and ``--check`` accept it) and not a link into this course repository
   (``colab_target``; ``--check-remote`` also lists the repository it opens);
1. hygiene checks on the source (``assignments/release/hygiene.py``) and its claims (``claims.py``: every figure
   or finding in prose, model answers and mark schemes carries a footnote that says it was measured,
   derived, estimated or cited); any problem stops the release before anything runs, each reported as
   ``<file>: cell <index> (<grade_id>): <problem>``;
2. stage a private nbgrader course folder (a copy of ``nbgrader_config.py`` and ``source/<a>/``, its
   first cell pointing at the Colab URL configured in ``pyproject.toml``) and run the real
   ``nbgrader generate_assignment --no-db`` there (the repository's gradebook is never touched);
3. scan the staged release for leaks (markers, hidden tests, mark schemes, solution lines, imports of
   the course's own packages) and check it is self-contained (Colab link, setup cell);
4. ``nbgrader validate`` on (a copy of) the source must pass every test, and
   ``nbgrader validate --invert`` on (a copy of) the release must pass none;
5. ``solutions/<a>/<a>.ipynb``: the source without its hidden-test regions, executed in grading mode
   (``NBGRADER_EXECUTION=autograde``, offline, without the course package on the path), plus
   ``solutions/<a>/model_answers.md`` (prompt, model answer and mark scheme of each written question).

Only when every step succeeded for every requested assignment are the staged folders moved into
``release/<a>`` and ``solutions/<a>`` (replacing them whole); a failure leaves them untouched. Then the
source's Colab cell is synced if it was out of date (the only write to ``source/``), and the LMS
bundles ``dist/lms/<a>.zip`` are rebuilt (``course lms`` rebuilds them alone from the committed
``release/``).

Output is deterministic: release notebooks are byte-identical across runs, and so are solution notebooks
executed with the same library versions (each records them; see ``solutions.py``).
``course release --check`` (``check``) regenerates into a scratch folder and reports any drift from what is
committed, changing nothing (add ``--no-validate --no-execute`` for a drift check in about a minute).
``--no-validate``/``--no-execute`` are for quick iterations only: commit what a plain ``course release``
wrote. Other commands: ``course catalog`` (questions, points, totals against ``assignments/course.py``),
``course lms`` (bundles only), ``course hygiene`` (step 1 only), ``course claims`` (the claims of step 1,
also for assignments whose claims are not enforced yet).

The steps live in their own modules: ``pipeline`` (the run and the commit), ``claims``, ``staging``, ``leaks``,
``validation``, ``solutions``, ``drift``, ``tools`` (running nbgrader and nbconvert).
"""

from assignments.release import claims
from assignments.release.drift import (
    compare,
    drift,
    keep_other_environments_outputs,
    solution_notebooks,
    staged_folders,
    without_outputs,
)
from assignments.release.errors import Outcome, StepFailed
from assignments.release.leaks import leaks, secret_lines
from assignments.release.pipeline import (
    available,
    check,
    colab_link_problems,
    hygiene_problems,
    label_problems,
    release,
    source_problems,
)
from assignments.release.solutions import (
    GRADING_RUN_NOTE,
    SOLUTION_ENV,
    executed_with,
    execution_environment,
    model_answers,
    solution_notebook,
)

__all__ = [
    "release",
    "check",
    "source_problems",
    "claims",
    "label_problems",
    "available",
    "hygiene_problems",
    "colab_link_problems",
    "Outcome",
    "StepFailed",
    "leaks",
    "secret_lines",
    "model_answers",
    "drift",
    "compare",
    "staged_folders",
    "without_outputs",
    "solution_notebook",
    "GRADING_RUN_NOTE",
    "solution_notebooks",
    "keep_other_environments_outputs",
    "executed_with",
    "execution_environment",
    "SOLUTION_ENV",
]
