"""The course configuration: ``[tool.course]`` in the course root's ``pyproject.toml``.

One reader for every setting an instructor chooses once per course or term (the Canvas assignments the
grades go to, how ungraded written answers count, the late policy, excused questions). Each consumer
asks ``settings(root)`` for its own key and checks its own values, next to where they are used.

``SETTINGS`` is the schema: every key, its kind, default, choices and meaning, and the module that reads
it. It is the one place a setting is described: the settings reference (docs/reference/settings.md) is
generated from it, consumers take their choices from it (``setting(key).choices``), and
``tests/test_settings.py`` checks that every key the package names or the course's own
``pyproject.toml`` sets is declared here, with the defaults its reader applies.
"""

from __future__ import annotations

from dataclasses import dataclass
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


def settings(root: Path) -> dict:
    """``[tool.course]`` of ``root/pyproject.toml``; empty when the file or the table is missing or cannot
    be read (a process that has the repository hidden from it, like a student's kernel, gets defaults)."""
    try:
        return read_toml(Path(root) / "pyproject.toml").get("tool", {}).get("course", {})
    except OSError:
        return {}


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
    #: The module that reads and checks it.
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
