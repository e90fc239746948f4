"""A batch graded again over its run: what it keeps, what it grades, and whose scores moved.

``RegradePlan.of`` decides, before anything is graded, which records a batch keeps and which jobs it
grades; ``plan.finish`` writes, once the batch is graded, what moved.

- **Resume**: every record says what it was graded from (``submission_sha256``: the notebook's bytes) and
  by what (``grader_version``: ``grader_version()``). A batch started again over the same run keeps each
  record whose two are unchanged and grades the rest, so a batch stopped halfway loses only the
  submissions being graded when it stopped.
- **Regrade report**: when a student is graded again over an earlier record (the hidden tests were fixed,
  or the student sent a new notebook), the questions whose points moved are written to the run's
  ``regrade.json`` and printed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from assignments.course import Assignment
from assignments.escaping import one_line
from assignments.grader_files import autograder_files
from assignments.points import points_text
from assignments.results.model import Finding, SubmissionResult
from assignments.runs import store
from assignments.runs.folder import Run, as_run
from assignments.settings import tomllib  # tomli on Python 3.10

# --- the plan ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RegradePlan:
    """A batch over a run, decided before anything is graded: this grader's version, the records the run
    already held, those it keeps (graded from the same bytes by the same grader; their intake findings are
    this intake's) and the jobs left to grade, each stamped with its notebook's SHA-256."""

    run: Run
    version: str  #: grader_version() of the assignment
    earlier: dict[str, SubmissionResult]  #: student -> the record the run held before this batch
    kept: list[SubmissionResult]  #: records this batch keeps instead of grading their students again
    todo: list  #: the jobs to grade (grading's ``batch.Job``: a frozen dataclass with student, path, sha256)

    @classmethod
    def of(
        cls,
        run: Run | Path,
        assignment: Assignment,
        jobs: list,
        findings: dict[str, list[Finding]] | None = None,
    ) -> RegradePlan:
        """The plan for grading ``jobs`` into ``run``; ``findings``: student -> this intake's findings."""
        run = as_run(run)
        version = grader_version(assignment)
        earlier = _earlier_records(run, assignment.name)
        findings = findings or {}
        kept, todo = [], []
        for job in jobs:
            job = replace(job, sha256=submission_digest(Path(job.path)))
            if _still_valid(earlier.get(job.student), job.sha256, version):
                kept.append(_with_intake_findings(earlier[job.student], findings.get(job.student, [])))
            else:
                todo.append(job)
        return cls(run, version, earlier, kept, todo)

    def finish(self, graded: list[SubmissionResult], missing: list[SubmissionResult] = ()) -> list[str]:
        """Write the run's ``regrade.json`` once the batch has ``graded`` its jobs and written ``missing``
        (records of students without a notebook), and return what the terminal shows: how many students
        were graded again and, one line each, whose scores moved (that line empty when none did); nothing
        when the batch graded nobody again and moved nothing."""
        moved = _changes(self.earlier, list(graded) + list(missing))
        _write_regrade_report(self.run, self.version, len(graded), len(self.kept), moved)
        again = sum(1 for record in graded if record.student in self.earlier)
        if not (again or moved):
            return []
        headline = f"graded again: {again} student(s) with an earlier record; scores moved for {len(moved)}"
        return [headline, "\n".join(_report_lines(moved))]


# --- what a record was graded from, and by what -----------------------------------------------------------


def submission_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def grader_version(assignment: Assignment) -> str:
    """``<package version>+<hash>``: the hash covers everything grading reads, as the Gradescope bundle
    and the grader image ship it (the ``assignments`` package, the hidden suite and its stand-ins, the
    release notebook) and the questions' points and shortcut rules. A fix to a hidden test, a stand-in,
    the grader or a question's points changes it; the course's settings (late policy, term) and the
    installed libraries do not."""
    course_root = assignment.course.root
    digest = hashlib.sha256()
    files = autograder_files(assignment)
    for name in sorted(files):
        if name in ("pyproject.toml", "nbgrader_config.py"):
            continue  # the course's settings: a new late policy regrades nobody
        digest.update(name.encode("utf-8") + b"\0" + hashlib.sha256(files[name].read_bytes()).digest())
    points = {
        "questions": [[q.grade_id, q.points, q.kind] for q in assignment.questions],
        "shortcut_rules": {q: [list(r.forbidden), r.penalty] for q, r in sorted(assignment.shortcut_rules.items())},
    }
    digest.update(json.dumps(points, sort_keys=True).encode("utf-8"))
    try:
        with open(course_root / "pyproject.toml", "rb") as handle:
            version = tomllib.load(handle).get("project", {}).get("version", "0")
    except OSError:
        version = "0"
    return f"{version}+{digest.hexdigest()[:16]}"


def _earlier_records(run: Run, assignment: str) -> dict[str, SubmissionResult]:
    """student -> the record this run already holds for them (none when the run is new)."""
    folder = run.results
    if not folder.is_dir():
        return {}
    return {r.student: r for r in store.load_results(folder, assignment)}


def _still_valid(record: SubmissionResult | None, sha256: str, version: str) -> bool:
    """Whether ``record`` was graded from these bytes by this grader (so grading again would give it back)."""
    return (
        record is not None
        and record.door == "standalone"
        and bool(record.submission_sha256)
        and record.submission_sha256 == sha256
        and record.grader_version == version
    )


def _with_intake_findings(record: SubmissionResult, findings: list[Finding]) -> SubmissionResult:
    """``record`` with its intake findings replaced by this intake's (a late flag may have changed)."""
    kept = [f for f in record.findings if f.source != "intake"]
    return replace(record, findings=kept + list(findings))


# --- what a regrade changed ------------------------------------------------------------------------------


@dataclass
class Change:
    student: str
    why: str  # "the grader changed", "a new submission", both, or "an earlier record without provenance"
    questions: list[dict] = field(default_factory=list)  # {"grade_id", "before", "after"}, points moved
    total_before: float = 0.0
    total_after: float = 0.0


def _why(before: SubmissionResult, after: SubmissionResult) -> str:
    if not before.submission_sha256 or not before.grader_version:
        return "an earlier record that does not say what it was graded from"
    reasons = []
    if before.grader_version != after.grader_version:
        reasons.append(f"the grader changed ({before.grader_version} -> {after.grader_version})")
    if before.submission_sha256 != after.submission_sha256:
        reasons.append("a new submission")
    return " and ".join(reasons) or "graded again"


def _changes(earlier: dict[str, SubmissionResult], regraded: list[SubmissionResult]) -> list[Change]:
    """For every regraded student who had an earlier record: the autograded questions whose points moved."""
    found = []
    for after in sorted(regraded, key=lambda r: r.student):
        before = earlier.get(after.student)
        if before is None:
            continue
        old, new = _autograded_points(before), _autograded_points(after)
        moved = [
            {"grade_id": grade_id, "before": old.get(grade_id), "after": new.get(grade_id)}
            for grade_id in sorted(set(old) | set(new), key=lambda g: (_order(after, g), g))
            if old.get(grade_id) != new.get(grade_id)
        ]
        if moved:
            found.append(
                Change(after.student, _why(before, after), moved, before.autograded_points, after.autograded_points)
            )
    return found


def _autograded_points(record: SubmissionResult) -> dict[str, float | None]:
    return {q.grade_id: q.points for q in record.questions if q.kind == "autograded"}


def _order(record: SubmissionResult, grade_id: str) -> int:
    ids = [q.grade_id for q in record.questions]
    return ids.index(grade_id) if grade_id in ids else len(ids)


def _write_regrade_report(run: Run, version: str, regraded: int, kept: int, found: list[Change]) -> Path:
    """``<run>/regrade.json``: this batch's grader version, how many records it graded and kept, and every
    student whose scores moved, question by question."""
    path = run.regrade_report
    data = {
        "grader_version": version,
        "graded": regraded,
        "kept": kept,
        "changed": [c.__dict__ for c in found],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def _report_lines(found: list[Change]) -> list[str]:
    """The terminal's view of the changes: one line per student (keys are the students' text: one
    printable line each)."""
    lines = []
    for change in found:
        moves = ", ".join(f"{q['grade_id']} {_shown(q['before'])} -> {_shown(q['after'])}" for q in change.questions)
        lines.append(
            f"  {one_line(change.student)}: {points_text(change.total_before)} -> {points_text(change.total_after)} "
            f"({moves}; {change.why})"
        )
    return lines


def _shown(value) -> str:
    return "-" if value is None else points_text(value)
