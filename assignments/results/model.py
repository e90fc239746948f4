"""The results model: one record per student, with one entry per question. Every exporter reads this."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Literal

from assignments.course import Assignment
from assignments.escaping import one_line
from assignments.results.findings import SHORTCUT, TEST_BUDGET, Severity, Source, kind
from assignments.titles import question_titles

BUDGET_FINDING = TEST_BUDGET  # a hidden test ran past its budget in the grader

# The choices each status field declares (typing.get_args gives them as a tuple).
Outcome = Literal["passed", "failed", "error"]
QuestionKind = Literal["autograded", "manual"]
EvidenceStatus = Literal["kept", "missing", "not-run", "edited"]
Door = Literal["standalone", "nbgrader", "in-process"]
Status = Literal["graded", "rejected"]

# The longest test message a record keeps. Grader-written messages are a sentence or two (~300 chars);
# the cap is what keeps a message built from anything a kernel sent back (a forged reply, text a test
# forgot to pass through checks.kernel_value) from growing a record to megabytes.
MESSAGE_CHARS = 600


def bounded_message(text: str) -> str:
    """``text`` as every export may show it: one printable line (``escaping.one_line``: escape sequences and
    bidirectional overrides become "?") of at most MESSAGE_CHARS. Applying it twice changes nothing."""
    return one_line(text, MESSAGE_CHARS)


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class, despite the name
    name: str  #: the test function's name, which says the behaviour it checks
    question: str  #: grade_id of the autograded test cell
    points: float  #: points earned
    max_points: float  #: the test's share of its question's points
    outcome: Outcome  #: passed, failed, or error (the test itself could not run to a verdict)
    message: str = ""  #: author-written, safe to show the student; bounded_message() when created
    seconds: float = 0.0  #: how long the test ran

    def __post_init__(self):
        # Bounded here, when the record is made, so the stored record and every export read the same text.
        self.message = bounded_message(self.message)


@dataclass
class QuestionResult:
    grade_id: str  #: the question's cell: the test cell of an autograded one, the answer cell of a written one
    kind: QuestionKind  #: autograded (hidden tests) or manual (a written answer a person grades)
    max_points: float  #: the points the source notebook's cell declares
    points: float | None = None  #: None: waits for a person (manual) or was never graded
    tests: list[TestResult] = field(default_factory=list)  #: the hidden tests that scored it (autograded only)
    comment: str = ""  #: a grader's comment (from nbgrader's formgrader), shown to the student
    excused: bool = False  #: left out of the score and its maximum (exports/adjust.py)
    #: What students call the question (its notebook heading: titles.py), recorded when it was graded so
    #: every export shows it even without the source notebook; "" in records made before titles were kept.
    title: str = ""


@dataclass
class Finding:
    code: str  #: a code of results/findings.py's catalogue, e.g. "test-cell-edited", "invalid-json"
    message: str  #: what happened, for the student and the instructor
    severity: Severity = "warning"  #: "error": grading was affected (results/findings.py: each code's)
    cell: str | None = None  #: grade_id or cell position it concerns

    @property
    def source(self) -> Source:
        """Who made it, as the catalogue says of its code: "intake" (what the download showed, taken from the
        intake manifest: ``runs.manifest.IntakeFinding.as_finding``) or "grader" (every other, and a code
        the catalogue does not list)."""
        known = kind(self.code)
        return known.source if known else "grader"


@dataclass
class Evidence:
    """One evidence cell of one written question, as the student submitted it (``assignments/grading/submission/evidence.py``)."""

    question: str  #: grade_id of the written answer that relies on it
    cell: str  #: grade_id of the evidence cell
    status: EvidenceStatus  #: kept, or what went wrong: missing, not-run, edited
    note: str = ""  #: grader-written: why the status is not "kept"
    execution_count: int | None = None  #: Jupyter's count on the cell as submitted
    #: the outputs as submitted, within limits: {"kind": "text"|"image"|"error", "text"|"png": ...}
    outputs: list[dict] = field(default_factory=list)


@dataclass
class SubmissionResult:
    student: str  #: the student's key in this run (the LMS's id where the download gives one)
    assignment: str  #: the assignment's name
    door: Door  #: which grading door made it
    source_file: str = ""  #: the notebook that was graded
    status: Status = "graded"  #: "rejected": nothing could be run; every autograded question is 0
    questions: list[QuestionResult] = field(default_factory=list)  #: one entry per graded cell
    findings: list[Finding] = field(default_factory=list)  #: everything the grader noticed (results/findings.py)
    timings: dict = field(default_factory=dict)  #: seconds and memory the grading took, by stage
    #: Percent of the points possible an export reports, taken off by the course's late policy: a share,
    #: not points, because each export reports its own points possible (exports/adjust.py).
    late_percent: float = 0.0
    late_note: str = ""  #: how lateness was counted, for feedback
    evidence: list[Evidence] = field(default_factory=list)  #: written answers' evidence, as submitted
    # What the record was graded from and by what (assignments/runs/regrade.py): a later batch over the same run
    # keeps a record whose two are unchanged instead of grading the student again.
    submission_sha256: str = ""  #: SHA-256 of the notebook file as graded
    grader_version: str = ""  #: regrade.grader_version(): the package version and a hash of the grader's files

    def question(self, grade_id: str) -> QuestionResult:
        for entry in self.questions:
            if entry.grade_id == grade_id:
                return entry
        raise KeyError(grade_id)

    @property
    def autograded_points(self) -> float:
        return sum(q.points or 0.0 for q in self.questions if q.kind == "autograded")

    @property
    def autograded_max(self) -> float:
        return sum(q.max_points for q in self.questions if q.kind == "autograded")

    def scores(self) -> dict[str, float | None]:
        return {q.grade_id: q.points for q in self.questions}

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_dict(cls, data: dict) -> SubmissionResult:
        questions = [
            QuestionResult(**{**q, "tests": [TestResult(**t) for t in q["tests"]]}) for q in data.get("questions", [])
        ]
        findings = [Finding(**f) for f in data.get("findings", [])]
        evidence = [Evidence(**e) for e in data.get("evidence", [])]
        # ``late_penalty`` (points) came before ``late_percent``; stored records only ever held 0 there,
        # since the course's decisions are applied to copies at export time.
        rest = {k: v for k, v in data.items() if k not in ("questions", "findings", "evidence", "late_penalty")}
        return cls(questions=questions, findings=findings, evidence=evidence, **rest)


def score_questions(question_list, tests: list[TestResult]) -> list[QuestionResult]:
    """``question_list`` holds ``notebooks.Question`` entries. Sum the points of passed tests per question,
    capped at the cell's points; each question titled as students know it (``titles.question_titles``)."""
    named = question_titles(question_list)
    results = []
    for q in question_list:
        mine = [t for t in tests if t.question == q.grade_id]
        if q.kind == "autograded":
            results.append(
                QuestionResult(
                    q.grade_id, "autograded", q.points, _earned(mine, q.points), mine, title=named[q.grade_id]
                )
            )
        else:
            results.append(QuestionResult(q.grade_id, "manual", q.points, None, [], title=named[q.grade_id]))
    return results


def rejected(
    student: str, assignment: Assignment, door: str, finding: Finding, source_file: str = ""
) -> SubmissionResult:
    """The one shape of a record for a submission nothing could be graded from: status "rejected", the
    finding that says why, and every question of the assignment (an ``Assignment``) at 0 points (manual ones
    ungraded), so every export has the same columns for it as for anyone else; when even its questions
    cannot be read (no source notebook), the record has none."""
    try:
        questions = score_questions(assignment.questions, [])
    except (OSError, ValueError):
        questions = []
    return SubmissionResult(
        student, assignment.name, door, source_file, status="rejected", questions=questions, findings=[finding]
    )


def _earned(tests: list[TestResult], cap: float) -> float:
    return round(min(sum(t.points for t in tests), cap), 4)


def add_tests(result: SubmissionResult, earlier: list[TestResult]) -> None:
    """Put tests scored by an earlier grading of the same submission (``earlier``) in front of each
    question's own and score the questions again."""
    for question in result.questions:
        if question.kind != "autograded":
            continue
        question.tests = [t for t in earlier if t.question == question.grade_id] + question.tests
        question.points = _earned(question.tests, question.max_points)


def apply_penalties(result: SubmissionResult) -> None:
    """Set to 0 every autograded question that a ``shortcut`` finding with the ``zero`` penalty names
    (severity "error"; grading/submission/shortcuts.py makes those findings).

    The one place the penalty changes points; every door calls it after its last step that scores
    questions, so it belongs to the results, not to the submission's preparation."""
    zeroed = {f.cell for f in result.findings if f.code == SHORTCUT and f.severity == "error"}
    for question in result.questions:
        if question.grade_id in zeroed and question.kind == "autograded":
            question.points = 0.0
