"""Every finding code the grader records, in one catalogue: its usual severity, who may read its message,
and what it means in one line (the class report's legend and the findings reference, docs/reference/findings.md, read it from here).

A finding's own message says what happened to this submission; the catalogue says what the code means
in general. ``tests/results/test_findings.py`` checks that every ``Finding`` the package makes uses a code
listed here, with the listed severity.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]
# student: the message is shown as written; staff: left out of what students read; internal: the message
# may quote grader internals, so students read a fixed line instead (exports/text.py)
Audience = Literal["student", "staff", "internal"]
# grader: made while grading or exporting a record; intake: what the download showed (late, duplicates), made
# as the intake manifest's IntakeFinding and taken into the student's record (runs/manifest.py: as_finding)
Source = Literal["grader", "intake"]


@dataclass(frozen=True)
class FindingKind:
    code: str
    severity: Severity | tuple[Severity, ...]  # a tuple where the message decides (a guessed encoding)
    audience: Audience
    meaning: str
    source: Source = "grader"


def _kinds(*rows: tuple | Source) -> dict[str, FindingKind]:
    """The catalogue from its rows; a bare source ("intake", "grader") says who makes the rows after it."""
    kinds: dict[str, FindingKind] = {}
    source: Source = "grader"
    for row in rows:
        if isinstance(row, str):
            source = row
        else:
            kinds[row[0]] = FindingKind(*row, source=source)
    return kinds


CATALOGUE = _kinds(
    # reading the file (grading/submission/load.py, the Gradescope runner, intake)
    ("missing-file", "error", "student", "no file, or a folder where a notebook was expected"),
    ("missing-notebook", "error", "student", "the submission holds no notebook for this assignment"),
    ("too-large", "error", "student", "the notebook is larger than any door reads"),
    ("empty-file", "error", "student", "the submitted file is empty"),
    ("invalid-json", "error", "student", "the file is not text or not valid JSON"),
    ("not-a-notebook", "error", "student", "JSON, but not a Jupyter notebook"),
    ("bad-notebook", "error", "student", "the Gradescope upload could not be read as a notebook"),
    ("unsupported-nbformat", "error", "student", "an nbformat newer than the grader reads"),
    ("old-nbformat", "info", "student", "an old nbformat, converted to 4 for grading"),
    ("text-encoding", ("warning", "info"), "student", "not UTF-8; read in another encoding"),
    ("line-endings", "info", "student", "Windows line endings, read as plain newlines"),
    ("notebook-format", "info", "student", "an editor's extra metadata, ignored"),
    ("metadata-invalid", "warning", "student", "malformed nbgrader metadata; the cell counts as added"),
    ("upload", "info", "student", "what the Gradescope runner did with the upload's files"),
    # checking and restoring (grading/submission/restore.py, recover.py, audit.py, shortcuts.py)
    ("unknown-assignment", "error", "student", "the notebook is not from any assignment of this course"),
    ("wrong-assignment", "error", "student", "the notebook is another assignment's"),
    ("cells-recovered", "warning", "student", "cells whose metadata was lost were found by their content"),
    ("recovery-ambiguous", "warning", "student", "a lost cell matched several candidates"),
    ("answer-missing", "error", "student", "an answer cell was deleted; the empty template was graded"),
    ("test-cell-deleted", "warning", "student", "a test cell was deleted; the original was restored"),
    ("locked-cell-deleted", "warning", "student", "a locked cell was deleted; the original was restored"),
    ("test-cell-edited", "warning", "student", "a test cell was edited; the original was restored"),
    ("locked-cell-edited", "warning", "student", "a locked cell was edited; the original was restored"),
    ("cell-duplicated", "warning", "student", "a graded cell appears twice; one copy was kept"),
    ("cell-type-changed", "warning", "student", "a graded cell's type was changed; the template's was used"),
    ("cells-reordered", "warning", "student", "graded cells were moved; the template's order was used"),
    ("metadata-changed", "warning", "student", "a cell's nbgrader metadata was changed; the template's was used"),
    ("unknown-grade-id", "warning", "student", "a cell names a grade_id the assignment does not have"),
    ("student-cells-added", "info", "student", "cells the student added, kept and run"),
    ("suspicious-code", "warning", "student", "the static audit noticed code worth an instructor's look"),
    ("shortcut", "warning", "student", "an answer uses a library call its question forbids"),
    ("shortcut-check-failed", "warning", "staff", "the shortcut check itself failed; no score changed"),
    # running (grading/sandbox/)
    ("kernel-start-failed", "error", "internal", "the sandboxed kernel could not start"),
    ("sandbox-refused", "error", "internal", "the machine cannot run students' code in the sandbox: not graded"),
    ("sandbox-degraded", "info", "staff", "the grading machine gave less isolation than it should"),
    ("cell-error", "warning", "student", "a cell raised an exception"),
    ("cell-timeout", "error", "student", "a cell ran past its time budget"),
    ("cell-skipped", "error", "student", "a cell was not run (an earlier one broke the kernel)"),
    ("time-budget", "error", "student", "the submission's total time budget ran out"),
    ("memory-limit", "error", "student", "the kernel went over its memory limit"),
    ("kernel-died", "error", "student", "the kernel process ended"),
    ("kernel-restarted", "info", "student", "the kernel was restarted to go on grading"),
    ("output-truncated", "info", "student", "a cell printed more than is kept"),
    ("score-like-output", "info", "student", "the notebook printed something that looks like a score"),
    ("shared-tmp-removed", "info", "student", "files the kernel left in shared temporary folders, removed"),
    ("sandbox-cleanup-incomplete", "warning", "staff", "the sandbox's clean-up left something; grading went on"),
    # testing (grading/testkit/, the doors)
    ("reply-refused", "error", "student", "a reply from the kernel broke a limit"),
    ("test-budget", "error", "student", "a hidden test ran past its grader-side budget"),
    ("suite-problem", "error", "internal", "the hidden suite itself has a problem"),
    ("grader-error", "error", "internal", "the grader failed on this submission"),
    ("grader-crash", "error", "internal", "the grader process died on this submission"),
    ("internal-error", "error", "internal", "an internal error of the grader"),
    ("visible-check", "info", "student", "the selftest's record of a visible check's outcome"),
    # the nbgrader door (grading/doors/nbgrader/)
    ("repaired", "info", "student", "the notebook was repaired before nbgrader read it"),
    ("repair-failed", "error", "student", "the notebook could not be repaired for nbgrader"),
    ("not-repaired", "error", "student", "no repaired copy exists for nbgrader"),
    ("nbgrader-autograde", "error", "staff", "nbgrader autograde failed on this notebook"),
    ("nbgrader-timeout", "error", "student", "nbgrader's run of the notebook ran past its time"),
    ("not-autograded", "error", "student", "nbgrader left no grade for this notebook"),
    ("doors-disagree", "warning", "student", "the nbgrader and standalone doors gave different points"),
    # written answers' evidence (grading/submission/evidence.py)
    ("evidence-missing", "warning", "student", "an evidence cell of a written answer is missing or was not run"),
    ("evidence-edited", "warning", "student", "an evidence cell was edited after it ran"),
    ("evidence-unread", "warning", "student", "the evidence cells could not be read"),
    # course written's PDFs (handgrading/written.py): one student's answers never stop or reshape another's PDF
    ("written-too-large", "warning", "staff", "written answers and evidence too large to print; left out of the PDFs"),
    ("written-render-failed", "warning", "staff", "the written answers' PDF was not printed (in time); HTML only"),
    ("written-pages-cut", "info", "staff", "a written answer ran past the pages a question takes; the PDF notes it"),
    # intake (intake/): the manifest keeps each under its own code, the catalogue's without "intake-"
    "intake",
    ("intake-duplicate", "warning", "student", "several notebooks from one student; the latest was kept"),
    ("intake-late", "info", "student", "submitted after the due date"),
    ("intake-not-a-notebook", "warning", "student", "a file in the submission is not a notebook"),
    ("intake-malformed-notebook", "error", "student", "a notebook in the submission could not be read"),
    ("intake-missing-notebook", "error", "student", "no readable notebook for this assignment"),
    ("intake-wrong-assignment", "error", "student", "the notebook looks like another assignment's"),
    ("intake-unreadable-entry", "error", "student", "an archive entry could not be read"),
    ("intake-ignored", "warning", "student", "a file in the submission was ignored"),
    ("intake-unsafe-path", "error", "student", "an archive entry with an unsafe path or a link, skipped"),
    # a name that could read as a path or as someone else's: refused where it says who (error), else kept
    ("intake-unsafe-name", ("error", "warning"), "student", "a file name with a backslash, NUL or the like"),
    # staff: the message names the other students involved
    ("intake-name-collision", "warning", "staff", "two students' names would share a key; kept apart"),
    ("intake-group-submission", "info", "student", "one submission for a group; each member graded on it"),
    ("intake-unattributed", "error", "student", "a file of a Gradescope export that names no student"),
    ("intake-over-limit", "error", "student", "past one student's allowance (files, bytes, depth, names); not read"),
    # exports (exports/canvas.py): staff, since the message names the other students a join would have merged
    "grader",
    ("canvas-identity", "error", "staff", "no single Canvas student for this record; left out of the Canvas CSV"),
)

SHORTCUT = "shortcut"
SHORTCUT_CHECK_FAILED = "shortcut-check-failed"
TEST_BUDGET = "test-budget"
INTERNAL_CODES = frozenset(code for code, kind in CATALOGUE.items() if kind.audience == "internal")
STAFF_ONLY_CODES = frozenset(code for code, kind in CATALOGUE.items() if kind.audience == "staff")


def kind(code: str) -> FindingKind | None:
    return CATALOGUE.get(code)
