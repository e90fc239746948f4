"""A class graded in parts: shards of one run, a stopped batch resumed, shards merged into one run, and what
a regrade changed.

- **Shards** (``course grade --shard i/N``): student ``s`` belongs to shard ``sha256(s) mod N``, so every
  machine that reads the same download grades a fixed slice of the class without talking to the others,
  whatever order the download lists students in. ``i`` counts from 0, as a Kubernetes Indexed Job's
  ``JOB_COMPLETION_INDEX`` does.
- **Resume**: every record says what it was graded from (``submission_sha256``: the notebook's bytes) and
  by what (``grader_version``: ``grader_version()``). A batch started again over the same run keeps each
  record whose two are unchanged and grades the rest, so a batch stopped halfway loses only the
  submissions being graded when it stopped.
- **Regrade report**: when a student is graded again over an earlier record (the hidden tests were fixed,
  or the student sent a new notebook), the questions whose points moved are written to the run's
  ``regrade.json`` and printed.
- **Merge** (``course merge``): the shards' runs become one run folder laid out as a whole-class run
  (``results/``, ``intake.json``, ``submissions/``), from which the same exports are written.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path

from .course import Assignment
from .results import store
from .results.model import SubmissionResult
from .run_folder import SUBMISSIONS, Run, as_run

INTAKE_PREFIX = "intake-"  # the codes of findings a record takes from the intake (workflow.intake_findings)


# --- shards ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shard:
    index: int  # 0 .. count - 1
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"i/N"`` with 0 <= i < N; ValueError with a sentence otherwise."""
        try:
            index, count = (int(part) for part in str(text).split("/"))
        except ValueError:
            raise ValueError(f"a shard is written i/N (such as 0/3), not {text!r}") from None
        if count < 1 or not 0 <= index < count:
            raise ValueError(f"shard {text!r}: i must be 0 to N-1 (shards count from 0) and N at least 1")
        return cls(index, count)

    def owns(self, student: str) -> bool:
        return shard_of(student, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_of(student: str, count: int) -> int:
    """The shard of ``count`` that grades ``student``: the same on every machine and Python (no hash seed)."""
    return int.from_bytes(hashlib.sha256(student.encode("utf-8")).digest()[:8], "big") % count


# --- what a record was graded from, and by what -----------------------------------------------------------


def submission_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def grader_version(assignment: Assignment) -> str:
    """``<package version>+<hash>``: the hash covers everything grading reads, as the Gradescope bundle
    and the grader image ship it (the ``assignments`` package, the hidden suite and its stand-ins, the
    release notebook) and the questions' points and shortcut rules. A fix to a hidden test, a stand-in,
    the grader or a question's points changes it; the course's settings (late policy, term) and the
    installed libraries do not."""
    from assignments.gradescope.bundle import autograder_files

    from .config import tomllib  # tomli on Python 3.10

    course_root = assignment.course.root
    digest = hashlib.sha256()
    files = autograder_files(assignment.name, course_root)
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


def earlier_records(run: Run | Path, assignment: str) -> dict[str, SubmissionResult]:
    """student -> the record this run already holds for them (none when the run is new)."""
    folder = as_run(run).results
    if not folder.is_dir():
        return {}
    return {r.student: r for r in store.load_results(folder, assignment)}


def still_valid(record: SubmissionResult | None, sha256: str, version: str) -> bool:
    """Whether ``record`` was graded from these bytes by this grader (so grading again would give it back)."""
    return (
        record is not None
        and record.door == "standalone"
        and bool(record.submission_sha256)
        and record.submission_sha256 == sha256
        and record.grader_version == version
    )


def with_intake_findings(record: SubmissionResult, findings: list) -> SubmissionResult:
    """``record`` with its intake findings replaced by this intake's (a late flag may have changed)."""
    kept = [f for f in record.findings if not f.code.startswith(INTAKE_PREFIX)]
    return replace(record, findings=kept + list(findings))


# --- regrade report -------------------------------------------------------------------------------------


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


def changes(earlier: dict[str, SubmissionResult], regraded: list[SubmissionResult]) -> list[Change]:
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


def write_regrade_report(run: Run | Path, version: str, regraded: int, kept: int, found: list[Change]) -> Path:
    """``<run>/regrade.json``: this batch's grader version, how many records it graded and kept, and every
    student whose scores moved, question by question."""
    path = as_run(run).regrade_report
    data = {
        "grader_version": version,
        "graded": regraded,
        "kept": kept,
        "changed": [c.__dict__ for c in found],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def report_lines(found: list[Change]) -> list[str]:
    """The terminal's view of the changes: one line per student (keys are the students' text: one
    printable line each)."""
    from .escaping import one_line
    from .exports.text import points

    lines = []
    for change in found:
        moves = ", ".join(f"{q['grade_id']} {_shown(q['before'])} -> {_shown(q['after'])}" for q in change.questions)
        lines.append(
            f"  {one_line(change.student)}: {points(change.total_before)} -> {points(change.total_after)} "
            f"({moves}; {change.why})"
        )
    return lines


def _shown(value) -> str:
    from .exports.text import points

    return "-" if value is None else points(value)


# --- merge ----------------------------------------------------------------------------------------------


class MergeRefused(Exception):
    """The runs cannot make one run; the message says which and why."""


def merge_runs(assignment: str, runs: list[Run | Path], out: Run | Path) -> list[SubmissionResult]:
    """Join the runs of a class's shards into the run folder ``out``: every record (its submission copied
    to ``out/submissions`` and the record pointed at the copy) and one intake manifest. Refuses (and
    writes nothing) when two runs hold different records for one student, or when records were graded
    by different graders (a shard graded before a hidden-test fix would mix old and new scores)."""
    from .intake import IntakeResult

    runs = [as_run(run) for run in runs]
    owner: dict[str, tuple[SubmissionResult, Path]] = {}
    for shard in runs:
        run = shard.root
        if not shard.results.is_dir():
            raise MergeRefused(f"{run} holds no results/ folder: is it a run of `course grade`?")
        for record in store.load_results(shard.results, assignment):
            if record.student in owner and _comparable(owner[record.student][0]) != _comparable(record):
                raise MergeRefused(
                    f"{owner[record.student][1]} and {run} hold different records for one student "
                    f"({record.student!r}): were they graded as shards of one class?"
                )
            owner.setdefault(record.student, (record, run))
    if not owner:
        raise MergeRefused(f"no records of {assignment} in {', '.join(str(r) for r in runs)}")
    versions = sorted({record.grader_version for record, _ in owner.values() if record.door == "standalone"})
    if len(versions) > 1:
        raise MergeRefused(
            f"the runs were graded by different graders ({', '.join(v or 'unknown' for v in versions)}); "
            "grade every shard again with one image or checkout"
        )
    manifests = [IntakeResult.load(run.intake) for run in runs if run.intake.is_file()]
    whole = as_run(out)
    out = whole.root
    merged = [_moved_into(record, Path(run), out) for _, (record, run) in sorted(owner.items())]
    for record in merged:
        store.save_result(record, whole.results)
    if manifests:
        intake = manifests[0]
        for later in manifests[1:]:
            intake = later.merged_into(intake)
        _point_at_copies(intake, [run.root for run in runs], out).save(whole.intake)
    return merged


def _comparable(record: SubmissionResult) -> dict:
    data = record.to_dict()
    data.pop("timings", None)
    data.pop("source_file", None)
    return data


def _in_run(path_text: str, run: Path) -> Path | None:
    """Where ``path_text`` (a record's or a manifest's notebook) lies relative to ``run``: its place there,
    or, for a run graded elsewhere (a container names its files by its own paths, ``/runs/shard-0/...``),
    the same place under its ``submissions/``; None when it is in neither."""
    path = Path(path_text)
    try:
        return path.resolve().relative_to(Path(run).resolve())
    except ValueError:
        pass
    parts = path.parts
    if SUBMISSIONS not in parts:
        return None
    tail = Path(*parts[len(parts) - 1 - parts[::-1].index(SUBMISSIONS) :])
    return tail if (Path(run) / tail).is_file() else None


def _moved_into(record: SubmissionResult, run: Path, out: Path) -> SubmissionResult:
    """The record with its submission copied from the shard's run into ``out`` (same relative place)."""
    relative = _in_run(record.source_file, run) if record.source_file else None
    if relative is None or not (Path(run) / relative).is_file():
        return record  # graded from outside its run (a single notebook): keep the path as it is
    source, target = Path(run) / relative, Path(out) / relative
    if target.resolve() != source.resolve():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return replace(record, source_file=str(target))


def _point_at_copies(intake, runs: list[Path], out: Path):
    """The merged manifest with each notebook path that lies in one of ``runs`` moved to the same place in
    ``out`` (every shard's intake copied the whole class's notebooks to the same relative places)."""
    for entry in intake.submissions:
        for run in runs:
            relative = _in_run(entry.path, run) if entry.path else None
            if relative is not None:
                entry.path = str(Path(out) / relative)
                break
    return intake
