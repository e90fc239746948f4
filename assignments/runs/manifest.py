"""A run's intake manifest (``<run>/intake.json``): one ``Submission`` per student the download named, the
students without a notebook and the class-level ``IntakeFinding`` records. Intake writes it; grading,
merging shards, delivery and the exports read it. A student's intake findings go into their record as
results ``Finding``s (``IntakeFinding.as_finding``)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from assignments.results.model import Finding


@dataclass
class Submission:
    student: str  # key used for results files and gradebooks (LMS user id when known)
    path: str | None  # the notebook copied under dest; None: this student has no notebook
    original_name: str  # the name the student uploaded (without the LMS prefix)
    late: bool = False
    name: str = ""  # display name from the LMS ("doejane", "Jane Doe", Gradescope's name)
    lms: str = "plain"  # "canvas" | "moodle" | "gradescope" | "plain" | "folder"
    user_id: str | None = None  # LMS user id (Canvas user id, Moodle participant id)
    submission_id: int | None = None  # Canvas submission/attachment id, Gradescope submission id (higher is newer)
    entry: str = ""  # where it came from: the zip entry or the relative path
    sid: str | None = None  # Gradescope: the student id of the course roster
    email: str | None = None  # Gradescope: the student's email
    submitted_at: str | None = None  # Gradescope: when it was uploaded (ISO 8601, UTC)
    group: list[str] = field(default_factory=list)  # the other members' keys of a group submission


@dataclass
class IntakeFinding:
    code: str  # "duplicate" | "late" | "not-a-notebook" | "wrong-assignment" | "missing-notebook"
    # | "malformed-notebook" | "unreadable-entry" | "unsafe-path" | "unsafe-name" | "name-collision"
    # | "group-submission" | "unattributed" | "over-limit"
    message: str
    student: str | None = None
    file: str = ""
    severity: str = "warning"  # "error" | "warning" | "info"

    def as_finding(self) -> Finding:
        """This finding as a record holds it: under its catalogue code (results/findings.py), which is
        ``intake-`` and the intake's own; the manifest keeps the intake's code, as intake.json always has."""
        return Finding(f"intake-{self.code}", self.message, self.severity)


@dataclass
class IntakeResult:
    assignment: str
    source: str
    submissions: list[Submission] = field(default_factory=list)  # one per student, with a notebook
    missing: list[Submission] = field(default_factory=list)  # students who sent files but no notebook
    findings: list[IntakeFinding] = field(default_factory=list)
    layout: str = ""  # how the input was read: "canvas", "gradescope", "folder", "canvas, plain", ...

    def students(self) -> list[str]:
        return [s.student for s in self.submissions]

    def findings_by_student(self) -> dict[str, list[Finding]]:
        """student -> the intake's findings about them (late, duplicates), as their record holds them."""
        by_student: dict[str, list[Finding]] = {}
        for finding in self.findings:
            if finding.student:
                by_student.setdefault(finding.student, []).append(finding.as_finding())
        return by_student

    def roster(self) -> dict[str, dict]:
        """student key -> what the LMS told us about them (the Canvas exporter reads this)."""
        return {
            s.student: {
                "name": s.name,
                "user_id": s.user_id,
                "lms": s.lms,
                "late": s.late,
                # Gradescope's own keys, for a join with another platform's roster (exports/canvas.py)
                **({"sid": s.sid, "email": s.email} if s.lms == "gradescope" else {}),
            }
            for s in self.submissions + self.missing
        }

    def merged_into(self, earlier: IntakeResult) -> IntakeResult:
        """This intake (a regrade of some students) joined with an earlier one of the same run: students
        found now replace their earlier entries and findings, everyone else's are kept as they were."""
        now = {s.student for s in self.submissions + self.missing}
        return IntakeResult(
            self.assignment,
            self.source,
            sorted(
                [s for s in earlier.submissions if s.student not in now] + self.submissions, key=lambda s: s.student
            ),
            sorted([s for s in earlier.missing if s.student not in now] + self.missing, key=lambda s: s.student),
            [f for f in earlier.findings if f.student is not None and f.student not in now] + self.findings,
            self.layout,
        )

    def to_dict(self) -> dict:
        return asdict(self)

    def save(self, path: Path) -> Path:
        """Write the manifest (``grades/<assignment>/intake.json`` by convention)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: Path) -> IntakeResult:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(
            assignment=data["assignment"],
            source=data["source"],
            submissions=[Submission(**s) for s in data.get("submissions", [])],
            missing=[Submission(**s) for s in data.get("missing", [])],
            findings=[IntakeFinding(**f) for f in data.get("findings", [])],
            layout=data.get("layout", ""),
        )

    def summary(self) -> str:
        counts: dict[str, int] = {}
        for finding in self.findings:
            counts[finding.code] = counts.get(finding.code, 0) + 1
        parts = [f"{len(self.submissions)} submission(s)"]
        if self.missing:
            parts.append(f"{len(self.missing)} student(s) without a notebook")
        parts += [f"{n} {code}" for code, n in sorted(counts.items())]
        read_as = f" (read as {self.layout})" if self.layout else ""
        return f"{self.assignment}{read_as}: " + ", ".join(parts)
