"""The command line's arguments that name an assignment, a path or a count, each with its check at the edge.

Every check here runs before a command does anything, so bad input gets one line (what was wrong, what
to do), exit status 2, and nothing written. A command declares such an argument through one helper below
(``assignment``, ``download``, ``output_folder``, ...), which adds the argparse argument and records its
check on the command's parser; ``check`` runs a command's checks in the order declared, after parsing,
since an assignment name is one of the course ``--root`` names and a run folder belongs to the assignment
named before it. Values whose form alone decides (a count, a shard, export formats) are argparse types
instead, refused while parsing with the same one line (``help.CourseParser.error``).

What the checks know of a run folder (``run_of``): the assignment its ``intake.json`` or its records name,
or the folder's place, ``grades/<term>/<assignment>/...`` of the course.
"""

from __future__ import annotations

import argparse
import json
import os
import zipfile
from functools import partial
from pathlib import Path

from assignments import exports
from assignments.cli.options import course_of
from assignments.course import CATALOG, REPO, Course, default
from assignments.escaping import one_line
from assignments.exports.canvas import read_gradebook_export
from assignments.intake import IntakeResult
from assignments.locks import supported_pythons
from assignments.platforms.prairielearn.runner import QUESTION_COURSE
from assignments.runs.folder import GRADEBOOK, INTAKE, RESULTS, SHARD
from assignments.runs.shards import Shard
from assignments.runs.store import load_result

DOWNLOAD = "a .zip the LMS exported, a folder of notebooks (one per student, or a folder each) or one .ipynb"


class BadInput(Exception):
    """Input a command refuses before doing anything: its message is the one line the instructor reads
    (what was wrong, and what to do), printed after ``course <command>:``; the exit status is 2."""


# --- declaring arguments ---------------------------------------------------------------------------------


def _add_check(parser, step) -> None:
    parser.set_defaults(checks=(*(parser.get_default("checks") or ()), step))


def own_check(parser, step) -> None:
    """A command's own check of its arguments, ``step(args, course)`` raising BadInput: run with the others,
    in the order declared, before the command does anything."""
    _add_check(parser, step)


def _listed(names) -> str:
    return ", ".join(names)


def assignment(
    parser, *, several: bool = False, default_help: str = "", from_root: bool = False, also=None, optional: bool = False
) -> None:
    """The assignment (``several``: zero or more; none means ``default_help``; ``optional``: zero or one), one
    of the course's names (``from_root``: of ``--root``'s course when given) or of ``also(args)``."""
    try:
        names = known_assignments(default())
    except ValueError:  # a term [tool.course] cannot have: `check` says so for the commands that need it
        names = [entry.name for entry in CATALOG]
    help_text = f"one of: {_listed(names)}" + (" (or those of --root's course)" if from_root else "")
    if several:
        parser.add_argument("assignment", nargs="*", help=f"{help_text}; default: {default_help}")
    elif optional:
        parser.add_argument("assignment", nargs="?", help=f"{help_text}; {default_help}")
    else:
        parser.add_argument("assignment", help=help_text)
    _add_check(parser, partial(_known_assignments, also))


def download(parser, dest: str = "submissions", help: str = DOWNLOAD) -> None:
    """The class's submissions as the LMS gave them: a zip, a folder or one notebook."""
    parser.add_argument(dest, type=Path, help=help)
    _add_check(parser, partial(_download_ok, dest))


def output_folder(parser, flag: str = "--out", *, help: str, run: bool = True) -> None:
    """A folder a command writes into (made when missing); ``run``: one of the assignment's runs, so never
    another assignment's. ``flag`` may be a positional argument's name."""
    if flag.startswith("-"):
        action = parser.add_argument(flag, type=Path, default=None, help=help)
    else:
        action = parser.add_argument(flag, type=Path, help=help)
        flag = ""
    _add_check(parser, partial(_output_ok, action.dest, flag, "folder", None, run))


def output_file(parser, flag: str, suffix: str, *, help: str, run: bool = True) -> None:
    """A file a command writes (``suffix``: its extension); ``run`` as for ``output_folder``."""
    action = parser.add_argument(flag, type=Path, default=None, help=help)
    _add_check(parser, partial(_output_ok, action.dest, flag, "file", suffix, run))


def run_folders(parser) -> None:
    """``course merge``'s shards: existing runs of the assignment."""
    parser.add_argument("runs", nargs="+", type=Path, help="each shard's run folder (its --out)")
    _add_check(parser, _runs_ok)


def results_folder(parser) -> None:
    """``course export --results``: an existing results folder of one of the assignment's runs."""
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="a run's results folder; default: the term's, grades/<term>/<assignment>/results "
        "(everything else is read from the same run folder)",
    )
    _add_check(parser, _results_ok)


def roster(
    parser,
    help: str = "an intake manifest (.json), or a Canvas gradebook export (.csv: its names, SIS ids and sections); "
    "default: intake.json beside the results folder",
) -> None:
    """``course export --roster`` (and ``course written``'s): an intake manifest or a Canvas gradebook export."""
    parser.add_argument("--roster", type=Path, default=None, help=help)
    _add_check(parser, _roster_ok)


def database(parser) -> None:
    """``course export --db``: an nbgrader gradebook's URL (SQLAlchemy's form)."""
    parser.add_argument(
        "--db",
        default=None,
        help="nbgrader gradebook URL, such as sqlite:////srv/course/gradebook.db; default: the run's own "
        "(nbgrader/course/gradebook.db beside the results folder)",
    )
    _add_check(parser, _database_ok)


def excuse(parser) -> None:
    """``course export --excuse``: questions of the assignment, for everyone or one student."""
    parser.add_argument(
        "--excuse",
        action="append",
        metavar="QUESTION or STUDENT:QUESTION",
        help="leave a question out of score and maximum, for everyone or one student "
        "(repeatable; adds to [tool.course.excused])",
    )
    _add_check(parser, _excused_ok)


def gradebook_folder(parser) -> None:
    """``course formgrader --root``: an nbgrader course folder holding a gradebook."""
    parser.add_argument(
        "--root",
        dest="nbgrader_course",
        type=Path,
        default=None,
        help="nbgrader course folder; default: this term's run of the assignment "
        "(grades/<term>/<assignment>/nbgrader/course, made by `course grade`)",
    )
    _add_check(parser, _gradebook_ok)


def job_folder(parser) -> None:
    """``course prairielearn --job``: the job folder PrairieLearn mounts."""
    parser.add_argument("--job", type=Path, default=Path("/grade"), help="the job folder (default: /grade)")
    _add_check(parser, _job_ok)


def term(parser) -> None:
    """``course clean --term``: a term folder of the course's grades/."""
    parser.add_argument("--term", default=None, help="a term folder of grades/ to remove as well")
    _add_check(parser, _term_ok)


def pythons(parser) -> None:
    """``course lock --python``: Pythons the course supports."""
    parser.add_argument("--python", action="append", metavar="3.X", help="only this Python's lock (repeatable)")
    _add_check(parser, _pythons_ok)


def mutants(parser) -> None:
    """``course selftest --mutant``: mutants of the assignments named."""
    parser.add_argument("--mutant", action="append", help="only this mutant (repeatable)")
    _add_check(parser, _mutants_ok)


# --- types: values whose form alone decides --------------------------------------------------------------


def count(text: str) -> int:
    """A whole number of at least 1 (workers, repeats, pairs shown)."""
    return _whole(text, 1)


def count_or_zero(text: str) -> int:
    """A whole number of at least 0."""
    return _whole(text, 0)


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{one_line(text, 40)!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{value} is less than {least}")
    return value


def seconds(text: str) -> float:
    """A positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{one_line(text, 40)!r} is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{value:g} seconds: give a positive number")
    return value


def port(text: str) -> int:
    value = count(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (1 to 65535)")
    return value


def shard(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def formats(text: str) -> list[str]:
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in chosen if name not in exports.FORMATS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown export format(s) {one_line(', '.join(unknown), 80)}; choose from {', '.join(exports.FORMATS)}"
        )
    return chosen


# --- the checks ------------------------------------------------------------------------------------------


def check(args) -> None:
    """Every check the command declared, in order; BadInput with the first problem."""
    steps = getattr(args, "checks", ())
    if not steps and getattr(args, "root", None) is None:
        return
    course = course_root(args)
    for step in steps:
        step(args, course)


def course_root(args) -> Course:
    """The course a command works on: ``--root``'s, else this checkout's."""
    root = getattr(args, "root", None)
    if root is not None:
        folder = Path(root)
        if not folder.exists():
            raise BadInput(f"--root {_shown(folder)} does not exist; give a course folder (it holds source/)")
        if not folder.is_dir():
            raise BadInput(f"--root {_shown(folder)} is a file; give a course folder (it holds source/)")
    try:
        return course_of(args)
    except ValueError as error:  # [tool.course] term cannot name a folder
        raise BadInput(f"{error}; fix it in pyproject.toml") from None


def known_assignments(course: Course) -> list[str]:
    """The assignment names a command accepts: those of the course's names (its catalog and any source folder
    besides) that have a folder in its source/, release/ or autograder/ (a course made for a test holds
    only its own; a Gradescope bundle only source/<a>/grading.json), or all of its names where none has."""
    names = course.names()
    folders = (course.source_dir, course.release_dir, course.autograder_dir)
    here = [name for name in names if any((folder / name).is_dir() for folder in folders)]
    # A hidden suite is an assignment the grader can grade, catalogued or not (the grader image's course
    # holds autograder/<a>/ and source/<a>/grading.json, no source notebook).
    suites = course.autograder_dir
    graded = sorted(
        p.name for p in (suites.iterdir() if suites.is_dir() else []) if p.is_dir() and p.name[0] not in "_."
    )
    here += [name for name in graded if name not in here]
    return here or names


def _known_assignments(also, args, course: Course) -> None:
    given = args.assignment if isinstance(args.assignment, list) else [args.assignment] if args.assignment else []
    known = known_assignments(course)
    known += [name for name in (also(args) if also else []) if name not in known]
    for name in given:
        if name not in known:
            where = "" if course.root == REPO else f" in {_shown(course.root)}"
            raise BadInput(f"unknown assignment {one_line(name, 60)!r}{where}; choose one of: {_listed(known)}")


def job_assignments(args) -> list[str]:
    """A PrairieLearn question may ship its assignment in the job's tests/course/ (platforms.prairielearn.runner)."""
    shipped = Path(args.job) / "tests" / QUESTION_COURSE / "autograder"
    try:
        return sorted(p.name for p in shipped.iterdir() if p.is_dir()) if shipped.is_dir() else []
    except OSError:
        return []


def gradebook_assignments(args) -> list[str]:
    """``course formgrader --root``: the assignments that nbgrader course folder holds (its source/ folders), so
    a run of a course made elsewhere (the tutorial's toy course) opens as well as one of this checkout's."""
    folder = getattr(args, "nbgrader_course", None)
    source = Path(folder) / "source" if folder is not None else None
    try:
        return sorted(p.name for p in source.iterdir() if p.is_dir()) if source and source.is_dir() else []
    except OSError:
        return []


def _download_ok(dest: str, args, course) -> None:
    path = Path(getattr(args, dest))
    what = f"give the class's submissions: {DOWNLOAD}"
    if not path.exists():
        raise BadInput(f"{_shown(path)} does not exist; {what}")
    _readable(path, what)
    if path.is_dir():
        return
    if not path.is_file():
        raise BadInput(f"{_shown(path)} is neither a file nor a folder; {what}")
    suffix = path.suffix.lower()
    if suffix == ".ipynb":
        return
    if zipfile.is_zipfile(path):
        return
    if suffix == ".zip":
        raise BadInput(f"{_shown(path)} is not a readable zip archive (damaged or cut short?); download it again")
    kind = f"a {one_line(suffix, 20)} file" if suffix else "a file without an extension"
    raise BadInput(f"{_shown(path)} is {kind}, not a zip, a folder or a notebook; {what}")


def _output_ok(dest: str, flag: str, kind: str, suffix: str | None, run: bool, args, course) -> None:
    path = getattr(args, dest)
    if path is None:
        return
    path = Path(path)
    if kind == "folder" and path.exists() and not path.is_dir():
        raise BadInput(f"{_flagged(flag, path)} is a file; give a folder (it is made if missing)")
    if kind == "file":
        if path.is_dir():
            raise BadInput(f"{_flagged(flag, path)} is a folder; give the path of a {suffix} file")
        if path.suffix.lower() != suffix:
            raise BadInput(f"{_flagged(flag, path)} does not end in {suffix}; give the path of a {suffix} file")
    _writable_below(flag, path)
    if run:
        _not_another_run(flag, path, args.assignment, course)


def _writable_below(flag: str, path: Path) -> None:
    """``path``, or the nearest folder on the way to it that exists, is one this user may write into."""
    wanted = Path(os.path.abspath(path))
    found = wanted
    while not found.exists() and found != found.parent:
        found = found.parent
    if found != wanted and not found.is_dir():
        raise BadInput(f"{_flagged(flag, path)}: {_shown(found)} is a file, not a folder; give another path")
    if not os.access(found, os.W_OK) or (found.is_dir() and not os.access(found, os.X_OK)):
        raise BadInput(f"{_flagged(flag, path)}: {_shown(found)} cannot be written (permissions); give another path")


def _not_another_run(flag: str, path: Path, assignment: str, course: Course) -> None:
    owner = run_of(path, course)
    if owner is not None and owner != assignment:
        raise BadInput(
            f"{_flagged(flag, path)} is in a run of {one_line(owner, 60)}, not of {assignment}; give another "
            f"folder, or leave {flag} out (grades/<term>/{assignment}/)"
        )


def run_of(path: Path, course: Course) -> str | None:
    """The assignment whose run holds ``path`` (the folder itself or one up to two levels above it), or None:
    by the course's layout (grades/<term>/<assignment>/...), else by what the run's intake.json or its
    first record says."""
    path = Path(os.path.abspath(path))
    try:
        parts = path.relative_to(course.root / "grades").parts
    except ValueError:
        parts = ()
    if len(parts) >= 2 and parts[1] in course.names():
        return parts[1]
    for folder in [path, *path.parents][:3]:
        found = _recorded_assignment(folder)
        if found is not None:
            return found
    return None


def _recorded_assignment(folder: Path) -> str | None:
    records = sorted((folder / RESULTS).glob("*.json"))[:1] if (folder / RESULTS).is_dir() else []
    for path in [folder / INTAKE, *records]:
        try:
            if path.is_file():
                name = json.loads(path.read_text(encoding="utf-8")).get("assignment")
                if isinstance(name, str) and name:
                    return name
        except (OSError, ValueError, AttributeError):
            continue
    return None


def _runs_ok(args, course) -> None:
    for path in args.runs:
        if not path.exists():
            raise BadInput(f"{_shown(path)} does not exist; give each shard's run folder (its --out)")
        if not path.is_dir():
            raise BadInput(f"{_shown(path)} is a file; give each shard's run folder (its --out)")
        _readable(path, "give each shard's run folder (its --out)")
        if not (path / RESULTS).is_dir() and not (path / SHARD).is_file():
            raise BadInput(
                f"{_shown(path)} is not a run folder (no {RESULTS}/ or {SHARD}); give each shard's run folder "
                "(the --out of its `course grade --shard i/N`)"
            )
        owner = run_of(path, course)
        if owner is not None and owner != args.assignment:
            raise BadInput(
                f"{_shown(path)} is a run of {one_line(owner, 60)}, not of {args.assignment}; "
                f"give the runs of {args.assignment}'s shards"
            )
        if (path / RESULTS).is_dir() and any((path / RESULTS).glob("*.json")):
            named = _shown(path / RESULTS)
            _records_ok(named, path / RESULTS, args.assignment, "give each shard's run folder (its --out)")


def _results_ok(args, course) -> None:
    path = args.results
    if path is None:
        return
    what = "give a run's results folder (grades/<term>/<assignment>/results)"
    if not path.exists():
        raise BadInput(f"--results {_shown(path)} does not exist; {what}")
    if not path.is_dir():
        raise BadInput(f"--results {_shown(path)} is a file; {what}")
    _readable(path, what)
    owner = run_of(path, course)
    if owner is not None and owner != args.assignment:
        raise BadInput(
            f"--results {_shown(path)} holds {one_line(owner, 60)}'s results, not {args.assignment}'s; "
            f"give {args.assignment}'s, or leave --results out (this term's run)"
        )
    _records_ok(f"--results {_shown(path)}", path, args.assignment, what)


def _records_ok(named: str, folder: Path, assignment: str, what: str) -> None:
    """Every ``*.json`` of a results folder reads as a record (``results.store``), and some are
    ``assignment``'s: what ``course export`` and ``course merge`` read, checked before they write."""
    found = set()
    for path in sorted(folder.glob("*.json")):
        try:
            found.add(load_result(path).assignment)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            raise BadInput(f"{named}: {_shown(path.name)} is not a result record; {what}") from None
    if not found:
        raise BadInput(f"{named} holds no results (*.json); grade first, or {what}")
    if assignment not in found:
        others = one_line(", ".join(sorted(found)), 120)
        raise BadInput(f"{named} holds results of {others}, not of {assignment}; {what}")


def _roster_ok(args, course) -> None:
    path = args.roster
    if path is None:
        return
    what = "give an intake manifest (intake.json) or a Canvas gradebook export (.csv, Grades > Export)"
    if not path.exists():
        raise BadInput(f"--roster {_shown(path)} does not exist; {what}")
    if not path.is_file():
        raise BadInput(f"--roster {_shown(path)} is not a file; {what}")
    _readable(path, what)
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            read_gradebook_export(path)
            return
        if suffix == ".json":
            IntakeResult.load(path)
            return
    except (ValueError, LookupError, TypeError, UnicodeDecodeError) as error:
        why = "is not a Canvas gradebook export" if suffix == ".csv" else "is not an intake manifest"
        detail = "" if suffix == ".csv" else f" ({one_line(type(error).__name__, 40)})"
        raise BadInput(f"--roster {_shown(path)} {why}{detail}; {what}") from None
    kind = f"a {one_line(suffix, 20)} file" if suffix else "a file without an extension"
    raise BadInput(f"--roster {_shown(path)} is {kind}; {what}")


def _database_ok(args, course) -> None:
    url = args.db
    if url is None:
        return
    scheme, sep, rest = url.partition("://")
    if not sep or not scheme or not scheme.replace("+", "").isalnum() or not rest:
        raise BadInput(
            f"--db {one_line(url, 120)!r} is not a database URL; give one such as sqlite:////srv/course/gradebook.db"
        )
    if scheme == "sqlite":
        path = Path(rest[1:]) if rest.startswith("/") else None
        if path is None or not path.parent.is_dir():
            raise BadInput(
                f"--db {one_line(url, 120)!r}: no folder for the gradebook file; give sqlite:/// and an existing "
                "folder's path (sqlite:////srv/course/gradebook.db for /srv/course/gradebook.db)"
            )
        if path.is_dir():
            raise BadInput(f"--db {one_line(url, 120)!r} names a folder; give the gradebook file's path")


def _excused_ok(args, course) -> None:
    if not args.excuse:
        return
    try:
        questions = [q.grade_id for q in course.assignment(args.assignment).questions]
    except (FileNotFoundError, ValueError, KeyError):
        return  # no source here to check against: the export checks against the records
    for entry in args.excuse:
        grade_id = str(entry).rpartition(":")[2]
        if grade_id not in questions:
            raise BadInput(
                f"--excuse {one_line(entry, 80)!r}: {one_line(grade_id, 60)!r} is not a question of "
                f"{args.assignment}; its questions: {_listed(questions)}"
            )


def _gradebook_ok(args, course) -> None:
    path = args.nbgrader_course
    if path is None:
        return
    what = f"give the nbgrader course folder of a graded run (grades/<term>/{args.assignment}/nbgrader/course)"
    if not path.exists():
        raise BadInput(f"--root {_shown(path)} does not exist; {what}")
    if not path.is_dir():
        raise BadInput(f"--root {_shown(path)} is a file; {what}")
    _readable(path, what)
    _not_another_run("--root", path, args.assignment, course)
    if not (path / GRADEBOOK).is_file():
        raise BadInput(f"--root {_shown(path)} holds no {GRADEBOOK}; {what}")


def _job_ok(args, course) -> None:
    if getattr(args, "print_timeout", False):  # prints a number, reads no job
        return
    path = args.job
    what = "run it in PrairieLearn's grading container, or give --job a job folder (student/ inside)"
    if not path.is_dir():
        raise BadInput(f"no job folder at {_shown(path)}; {what}")


def _term_ok(args, course) -> None:
    name = args.term
    if name is None:
        return
    grades = course.root / "grades"
    terms = sorted(p.name for p in grades.iterdir() if p.is_dir()) if grades.is_dir() else []
    if name in (".", "..", "") or "/" in name or os.sep in name or name not in terms:
        raise BadInput(
            f"no term folder grades/{one_line(name, 60)} in {_shown(course.root)}; "
            f"the terms there: {_listed(terms) or 'none'}"
        )


def _pythons_ok(args, course) -> None:
    supported = supported_pythons()
    for python in args.python or []:
        if python not in supported:
            raise BadInput(
                f"--python {one_line(python, 20)} is not a Python the course supports; choose from "
                f"{_listed(supported)} ([tool.course] pythons in pyproject.toml)"
            )


def _mutants_ok(args, course) -> None:
    names = args.assignment or course.present()
    for mutant in args.mutant or []:
        if not any((course.assignment(name).mutants_dir / f"{mutant}.py").is_file() for name in names):
            where = ", ".join(f"autograder/{name}/mutants/" for name in names)
            raise BadInput(f"--mutant {one_line(mutant, 80)!r} is no mutant of {_listed(names)}; the mutants: {where}")


# --- helpers ---------------------------------------------------------------------------------------------


def _readable(path: Path, what: str) -> None:
    if not os.access(path, os.R_OK) or (path.is_dir() and not os.access(path, os.X_OK)):
        raise BadInput(f"{_shown(path)} cannot be read (permissions); {what}")


def _flagged(flag: str, path: Path) -> str:
    return f"{flag} {_shown(path)}".strip()


def _shown(path: Path) -> str:
    """A path as typed, on one printable line."""
    return one_line(str(path), 200)
