"""The course configuration: ``[tool.course]`` in the course root's ``pyproject.toml``, read once.

``Settings.read(root)`` reads the table once into a frozen, typed ``Settings``; the course holds it
(``Course.settings``) and every consumer takes that object, never the file. Each part is checked where it is
first asked for (``term`` when the course is made, the late policy when an export applies it, Gradescope's
visibility when a results.json is written), with the one-line error that names the key, so a mistake in one
part stops only the commands that use it.

``SETTINGS`` is the schema: every key, its kind, default, choices and meaning, and the module that uses
it. It is the one place a setting is described: the settings reference (docs/reference/settings.md) is
generated from it, ``Settings`` takes its defaults and choices from it (``setting(key)``), and
``tests/test_settings.py`` checks that every key the package names or the course's own
``pyproject.toml`` sets is declared here, with the defaults ``Settings`` applies.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10 (Gradescope's Ubuntu 22.04): tomli, the same parser, is a dependency there
    import tomli as tomllib


def read_toml(path: Path) -> dict:
    """The whole of the TOML file at ``path`` (OSError, or ValueError for bad TOML). Every module that reads
    ``pyproject.toml`` reads it here, so the package imports on every supported Python."""
    with open(path, "rb") as handle:
        return tomllib.load(handle)


@dataclass(frozen=True)
class Setting:
    """One key of ``[tool.course]``."""

    #: Where it sits under ``[tool.course]``, dotted (``canvas.ungraded_written``); ``<assignment>`` stands
    #: for an assignment's name in a table keyed by assignment.
    key: str
    #: The TOML value it takes, in words.
    kind: str
    #: What a course that leaves it out gets (None: nothing; the setting's meaning says what follows).
    default: object
    #: What it decides, in the instructor's words.
    meaning: str
    #: The module that uses it.
    read_by: str
    #: The values it accepts, where it is one of a few.
    choices: tuple = ()


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "term",
        "string",
        "current",
        "The term. Every grading run writes under grades/<term>/<assignment>/ and reads nothing from another "
        "term's folder or the demo's (grades/demo/): start a new term by changing it. Not empty, not \"demo\", "
        "no '/'.",
        "assignments/course.py",
    ),
    Setting(
        "colab_url",
        "string",
        None,
        "Where students open a release notebook: the Open-in-Colab URL pattern, with {assignment} and "
        "{notebook} filled in. `course release` refuses a missing one or a template value (YOUR-ORG, <owner>).",
        "assignments/release/lms.py",
    ),
    Setting(
        "pythons",
        "list of strings (3.X)",
        None,
        "The Python versions the course installs on, each with its lock (locks/python3.X.txt, `make lock`); "
        "the Gradescope zip ships them all. requires-python in [project] is the lowest.",
        "assignments/locks.py",
    ),
    Setting(
        "gradescope_test_visibility",
        "string",
        "visible",
        "When students see the hidden tests' names and messages on Gradescope, in Gradescope's own terms; "
        "while they are held back (after_due_date, after_published) the total is held back too. Gradescope's "
        '"hidden" is refused: its spec keeps it for tests worth no points.',
        "assignments/exports/gradescope.py",
        ("visible", "after_due_date", "after_published"),
    ),
    Setting(
        "canvas.ungraded_written",
        "string",
        "withhold",
        'A student with a written answer no grader has graded yet: "withhold" leaves their Canvas cell empty '
        '(Canvas keeps what it has) until every written answer of theirs is graded; "partial" posts the '
        "points earned so far, the pending answers counting nothing yet. `course export` says how many answers "
        'are pending either way; "omit" and "zero", the earlier names, are read as "withhold" and "partial". '
        "`course export --ungraded-written` overrides it.",
        "assignments/exports/canvas.py",
        ("withhold", "partial"),
    ),
    Setting(
        "canvas.late_policy",
        "string",
        None,
        'Who deducts for lateness. "course": this Canvas course\'s own Late Policy is off, and the '
        '[tool.course.late_policy] penalty is in every export. "canvas": Canvas\'s Late Policy is on; exports '
        "carry scores before lateness and Canvas deducts from its own submission times. Unset: the course's "
        "penalty applies, and `course export` warns that Canvas's Late Policy, if on, would deduct again. "
        "`course export --canvas-late-policy` overrides it.",
        "assignments/exports/adjust.py",
        ("course", "canvas"),
    ),
    Setting(
        "canvas.url",
        "string",
        None,
        "The Canvas instance's address (https://canvas.example.edu), for `course feedback`'s delivery through "
        "Canvas's API. `course feedback --canvas-url` overrides it.",
        "assignments/delivery/deliver.py",
    ),
    Setting(
        "canvas.course_id",
        "string or integer",
        None,
        "The Canvas course's id (the number in its URL), for `course feedback`'s delivery through Canvas's API. "
        "`course feedback --canvas-course` overrides it.",
        "assignments/delivery/deliver.py",
    ),
    Setting(
        "canvas.assignments.<assignment>",
        "inline table: name (string), id (integer), points (number)",
        None,
        "The Canvas assignment an assignment's grade goes to, as Canvas's gradebook export titles its column, "
        "\"<name> (<id>)\"; the id is the number in the assignment's Canvas URL. Without an id, Canvas's import "
        "makes a new assignment (the export says so). points: its points possible in Canvas (default: every "
        "question's points); the total is scaled to them. Example: "
        'transformers = { name = "Homework 1: Transformers", id = 48211, points = 51 }.',
        "assignments/exports/canvas.py",
    ),
    Setting(
        "late_policy.per_day",
        "number (percent)",
        0.0,
        "Percent of the points possible taken off per started day late, in every export. 0 or no "
        "[tool.course.late_policy] table: no penalty. How late: hours_late where the roster has it, else the "
        "LMS's late flag, which counts as one started day.",
        "assignments/exports/adjust.py",
    ),
    Setting(
        "late_policy.grace_hours",
        "number (hours)",
        0.0,
        "Hours of lateness forgiven before the first day counts.",
        "assignments/exports/adjust.py",
    ),
    Setting(
        "late_policy.cap",
        "number (percent, 0 to 100)",
        100.0,
        "The most percent the late policy takes off.",
        "assignments/exports/adjust.py",
    ),
    Setting(
        "excused.<assignment>",
        "list of strings",
        None,
        'Questions left out of score and maximum: "<grade_id>" for the whole class, "<student>:<grade_id>" '
        'for one student. Example: transformers = ["own_reviews_written", "12345:mask_80_written"]. '
        "`course export --excuse` adds to it.",
        "assignments/workflow.py",
    ),
)


def setting(key: str) -> Setting:
    """The declared setting ``key`` (dotted, as in ``SETTINGS``); KeyError for a key the schema lacks."""
    for entry in SETTINGS:
        if entry.key == key:
            return entry
    raise KeyError(f"[tool.course] has no setting {key!r}; declare it in assignments/settings.py SETTINGS")


# ---------------------------------------------------------------- the typed settings

DEMO_TERM = "demo"  # the demo's folder of grades/, which no term may take


@dataclass(frozen=True)
class LatePolicy:
    """``[tool.course.late_policy]``: what lateness costs, in percent of the points possible."""

    per_day: float = 0.0  # percent of the points possible per started day late
    grace_hours: float = 0.0
    cap: float = 100.0  # most percent taken off

    @classmethod
    def from_settings(cls, table: dict | None) -> LatePolicy:
        """The policy of a ``[tool.course.late_policy]`` table (None: no table, no penalty); ValueError
        naming an unknown key or a value out of range."""
        table = table or {}
        unknown = set(table) - {"per_day", "grace_hours", "cap"}
        if unknown:
            raise ValueError(
                f"[tool.course.late_policy]: unknown key(s) {sorted(unknown)}; expected per_day, grace_hours, cap"
            )
        policy = cls(float(table.get("per_day", 0)), float(table.get("grace_hours", 0)), float(table.get("cap", 100)))
        if policy.per_day < 0 or policy.grace_hours < 0 or not 0 <= policy.cap <= 100:
            raise ValueError(
                f"[tool.course.late_policy] needs per_day >= 0, grace_hours >= 0 and 0 <= cap <= 100; got {table}"
            )
        return policy

    def days_late(self, info: dict) -> int:
        """Started days late after the grace period, from the roster entry of one student."""
        hours = info.get("hours_late")
        if hours is None:
            return 1 if info.get("late") else 0
        return max(0, math.ceil((float(hours) - self.grace_hours) / 24))

    def percent(self, days: int) -> float:
        return min(self.per_day * days, self.cap)


@dataclass(frozen=True)
class CanvasAssignmentSettings:
    """``[tool.course.canvas.assignments] <assignment>``: the Canvas assignment its grade goes to."""

    name: str | None = None  # as Canvas's gradebook titles it; None: the assignment's own title
    id: str = ""  # the number in its Canvas URL; "": Canvas's import makes a new assignment
    points: float | None = None  # its points possible in Canvas; None: every question's points


@dataclass(frozen=True)
class CanvasSettings:
    """``[tool.course.canvas]``."""

    ungraded_written: str = setting("canvas.ungraded_written").default  # as written; ``canvas.options`` checks it
    late_policy: str | None = None  # who deducts for lateness: "course", "canvas", or unsaid
    url: str | None = None
    course_id: str | None = None
    assignments: dict[str, CanvasAssignmentSettings] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, table: dict | None) -> CanvasSettings:
        table = table or {}
        late_policy = table.get("late_policy")
        choices = setting("canvas.late_policy").choices
        if late_policy is not None and late_policy not in choices:
            raise ValueError(f"[tool.course.canvas] late_policy is {late_policy!r}; choose one of {choices}")
        assignments = {
            name: CanvasAssignmentSettings(
                entry.get("name") or None,
                str(entry.get("id") or ""),
                None if entry.get("points") is None else float(entry["points"]),
            )
            for name, entry in (table.get("assignments") or {}).items()
        }
        return cls(
            table.get("ungraded_written", setting("canvas.ungraded_written").default),
            late_policy,
            _text(table.get("url")),
            _text(table.get("course_id")),
            assignments,
        )

    def assignment(self, name: str) -> CanvasAssignmentSettings:
        """The Canvas assignment configured for the course's assignment ``name`` (nothing configured: defaults)."""
        return self.assignments.get(name, CanvasAssignmentSettings())


def _text(value) -> str | None:
    return None if value is None or value == "" else str(value)


@dataclass(frozen=True)
class Settings:
    """``[tool.course]`` read once (``Settings.read``). Each part is typed and checked when first asked for,
    with the one-line error that names its key."""

    #: The table as ``pyproject.toml`` holds it; the parts below are read from it.
    table: dict = field(default_factory=dict)

    @classmethod
    def read(cls, root: Path) -> Settings:
        """``[tool.course]`` of ``root/pyproject.toml``; defaults when the file or the table is missing or cannot
        be opened (a process that has the repository hidden from it, like a student's kernel, gets defaults).
        ValueError where the file is not TOML."""
        try:
            table = read_toml(Path(root) / "pyproject.toml").get("tool", {}).get("course", {})
        except OSError:
            table = {}
        return cls(table)

    @functools.cached_property
    def term(self) -> str:
        """The term: the folder of grades/ this term's runs go to."""
        term = str(self.table.get("term", setting("term").default)).strip()
        if not term or term == DEMO_TERM or "/" in term or term.startswith("."):
            raise ValueError(
                f"[tool.course] term {term!r} cannot name a folder of grades/ (not empty, not {DEMO_TERM!r}, no '/')"
            )
        return term

    @property
    def colab_url(self) -> str | None:
        """The Open-in-Colab URL pattern (``release/lms.py`` checks it)."""
        return self.table.get("colab_url") or None

    @property
    def pythons(self) -> tuple[str, ...]:
        """The Python versions the course installs on, each with a lock (none: a course made for a test)."""
        return tuple(self.table.get("pythons", ()))

    @functools.cached_property
    def gradescope_test_visibility(self) -> str:
        """When students see the hidden tests on Gradescope and, with them, their autograded total
        (``exports/gradescope.py`` says what each value does there). ValueError for a value Gradescope does
        not know, and for "hidden" (Gradescope keeps it for tests worth no points)."""
        value = self.table.get("gradescope_test_visibility", setting("gradescope_test_visibility").default)
        if value == "hidden":
            raise ValueError(
                "[tool.course] gradescope_test_visibility = 'hidden' is refused: Gradescope keeps 'hidden' for tests "
                "worth no points (they never hide the total) and every test here carries points; use "
                "'after_due_date' or 'after_published' to hold the tests and the total back until then"
            )
        choices = setting("gradescope_test_visibility").choices
        if value not in choices:
            raise ValueError(f"[tool.course] gradescope_test_visibility is {value!r}; expected one of {choices}")
        return value

    @functools.cached_property
    def canvas(self) -> CanvasSettings:
        return CanvasSettings.from_settings(self.table.get("canvas"))

    @functools.cached_property
    def late_policy(self) -> LatePolicy:
        return LatePolicy.from_settings(self.table.get("late_policy"))

    def excused(self, assignment: str) -> tuple[str, ...]:
        """``[tool.course.excused] <assignment>``: its excused questions, "<grade_id>" or "<student>:<grade_id>"."""
        return tuple(self.table.get("excused", {}).get(assignment, ()))
