"""A command line a person can guess (issue #46, item 4): `course --help` lists the commands by job, every
command's help ends with an example the parser takes, and every bad input (an unknown assignment, a missing,
unreadable or wrong kind of path, a run folder of another assignment, a count or a shard that cannot be) is
answered with one line on stderr, exit status 2, no traceback, and nothing written.

Every command of ``assignments.cli.GROUPS`` is fed such inputs in-process (``assignments.cli.main``), and
a few through the installed ``course`` entry point. Nothing here grades: each case stops at the edge.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from assignments.cli import GROUPS, build_parser, main
from assignments.cli.arguments import known_assignments
from assignments.cli.help import examples
from assignments.course import REPO, default

OTHER_RUN = "runs/rnn"  # a run of rnn_attention, given where transformers' run is meant
TERM_RUN_OF_OTHER = str(default().grades_dir / "rnn_attention")  # this term's run of rnn_attention
HOSTILE = "\x1b[2J\x1b]0;owned\x07transformers\nfake line"  # an escape sequence and a line break

# (command line, a phrase the one line must hold). Relative paths are in the working folder `work` makes.
CASES: list[tuple[list[str], str]] = [
    # the term
    (["release", "transformerz"], "unknown assignment 'transformerz'; choose one of: transformers"),
    (["release", "--jobs", "0"], "--jobs: 0 is less than 1"),
    (["release", "--root", "notes.txt", "transformers"], "--root notes.txt is a file"),
    (["release", "--root", "toy-course", "transformers"], "unknown assignment 'transformers' in"),
    (["publish"], "the following arguments are required: dir"),
    (["publish", "notes.txt"], "notes.txt is a file; give a folder"),
    (["publish", "students", "transformerz"], "unknown assignment 'transformerz'"),
    (["publish", "students"], "colab_url in pyproject.toml is still a placeholder"),  # the shipped one
    (["intake", "transformerz", "class"], "unknown assignment 'transformerz'"),
    (["intake", "transformers", "notes.txt"], "notes.txt is a .txt file, not a zip, a folder or a notebook"),
    (["intake", "transformers", "class", "--dest", f"{OTHER_RUN}/submissions"], "is in a run of rnn_attention"),
    (["intake", "transformers", "class", "--manifest", f"{OTHER_RUN}/intake.json"], "is in a run of rnn_attention"),
    (["intake", "transformers", "class", "--manifest", "manifest.txt"], "does not end in .json"),
    (["intake", "transformers", "class", "--layout", "blackboard"], "invalid choice: 'blackboard'"),
    (["grade", "transformerz", "class"], "unknown assignment 'transformerz'"),
    (["grade", HOSTILE, "class"], "unknown assignment"),
    (["grade", "transformers", "missing.zip"], "missing.zip does not exist; give the class's submissions"),
    (["grade", "transformers", "notes.txt"], "is a .txt file"),
    (["grade", "transformers", "broken.zip"], "broken.zip is not a readable zip archive"),
    (["grade", "transformers", "class", "--out", OTHER_RUN], "--out runs/rnn is in a run of rnn_attention"),
    (["grade", "transformers", "class", "--out", TERM_RUN_OF_OTHER], "is in a run of rnn_attention"),
    (["grade", "transformers", "class", "--out", "notes.txt"], "--out notes.txt is a file; give a folder"),
    (["grade", "transformers", "class", "--out", "notes.txt/run"], "notes.txt is a file, not a folder"),
    (["grade", "transformers", "class", "--shard", "2/2"], "i must be 0 to N-1"),
    (["grade", "transformers", "class", "--workers", "many"], "'many' is not a whole number"),
    (["grade", "transformers"], "the following arguments are required: submissions"),
    (["autograde", "transformerz", "class"], "unknown assignment 'transformerz'"),
    (["autograde", "transformers", "class.zip"], "class.zip does not exist"),
    (["autograde", "transformers", "class", "--timeout", "-5"], "give a positive number"),
    (["autograde", "transformers", "class", "--out", OTHER_RUN], "is in a run of rnn_attention"),
    (["formgrader", "transformerz"], "unknown assignment 'transformerz'"),
    (["formgrader", "transformers", "--root", "class"], "--root class holds no gradebook.db"),
    (["formgrader", "transformers", "--root", "missing"], "--root missing does not exist"),
    (["formgrader", "transformers", "--root", f"{OTHER_RUN}/nbgrader/course"], "is in a run of rnn_attention"),
    (["formgrader", "transformers", "--port", "70000"], "70000 is not a port"),
    (["formgrader", "transformers", "--ip", "0.0.0.0"], "say so with --allow-remote"),
    (["formgrader", "transformers", "--ip", "10.1.2.3", "--allow-remote"], "needs a token per TA"),
    (["formgrader", "transformers", "--ta", "<b>"], "TA name"),
    (["written", "transformerz", "class"], "unknown assignment 'transformerz'"),
    (["written", "transformers", "roster.csv"], "roster.csv is a .csv file"),
    (["written", "transformers", "class", "--out", f"{OTHER_RUN}/written"], "is in a run of rnn_attention"),
    (["written", "transformers", "class", "--roster", "roster.csv"], "is not a Canvas gradebook export"),
    (["similarity", "transformerz", "class"], "unknown assignment 'transformerz'"),
    (["similarity", "transformers", "missing"], "missing does not exist"),
    (["similarity", "transformers", "class", "--top", "0"], "--top: 0 is less than 1"),
    (["export", "transformerz"], "unknown assignment 'transformerz'"),
    (["export", "transformers", "--results", "missing"], "--results missing does not exist"),
    (["export", "transformers", "--results", "notes.txt"], "--results notes.txt is a file"),
    (["export", "transformers", "--results", f"{OTHER_RUN}/results"], "holds rnn_attention's results"),
    (["export", "transformers", "--results", "empty"], "holds no results"),
    (["export", "transformers", "--results", "manifest-only"], "intake.json is not a result record"),
    (["export", "transformers", "--results", "mixed/results"], "notes.json is not a result record"),
    (["export", "transformers", "--out", f"{OTHER_RUN}/exports"], "is in a run of rnn_attention"),
    (["export", "transformers", "--roster", "roster.csv"], "is not a Canvas gradebook export"),
    (["export", "transformers", "--roster", "broken.json"], "is not an intake manifest"),
    (["export", "transformers", "--roster", "notes.txt"], "is a .txt file; give an intake manifest"),
    (["export", "transformers", "--roster", "missing.csv"], "--roster missing.csv does not exist"),
    (["export", "transformers", "--formats", "canvas,xlsx"], "unknown export format(s) xlsx"),
    (["export", "transformers", "--db", "gradebook.db"], "'gradebook.db' is not a database URL"),
    (["export", "transformers", "--db", "sqlite:////no/such/folder/gradebook.db"], "no folder for the gradebook"),
    (["export", "transformers", "--db", "sqlite:///class"], "names a folder"),
    (["export", "transformers", "--excuse", "111:no_such_question"], "is not a question of transformers"),
    (["feedback", "transformerz", "--lms", "canvas"], "unknown assignment 'transformerz'"),
    (["feedback", "transformers", "--lms", "blackboard"], "invalid choice: 'blackboard'"),
    (["feedback", "transformers", "--lms", "canvas", "--results", "missing"], "--results missing does not exist"),
    (["feedback", "transformers", "--lms", "moodle", "--results", f"{OTHER_RUN}/results"], "holds rnn_attention's"),
    (["feedback", "transformers", "--lms", "moodle", "--dry-run"], "--api and --dry-run are for Canvas"),
    (["cluster", "slurm", "transformerz", "class", "--shards", "2"], "unknown assignment 'transformerz'"),
    (["cluster", "mesos", "transformers", "class", "--shards", "2"], "invalid choice: 'mesos'"),
    (["cluster", "slurm", "transformers", "notes.txt", "--shards", "2"], "is a .txt file"),
    (["cluster", "slurm", "transformers", "class", "--shards", "0"], "0 is less than 1"),
    (["cluster", "slurm", "transformers", "class"], "the following arguments are required: --shards"),
    (["cluster", "slurm", "transformers", "class", "--shards", "2", "--partition", "a\n#SBATCH --uid=0"], "may hold"),
    (["cluster", "kubernetes", "transformers", "class", "--shards", "2", "--claim", "Bad_Name"], "Kubernetes name"),
    (["cluster", "kubernetes", "transformers", "class", "--shards", "2", "--image", "a b"], "not an image reference"),
    (["merge", "transformerz", "class"], "unknown assignment 'transformerz'"),
    (["merge", "transformers", OTHER_RUN], "runs/rnn is a run of rnn_attention, not of transformers"),
    (["merge", "transformers", "class"], "class is not a run folder"),
    (["merge", "transformers", "mixed"], "notes.json is not a result record"),
    (["merge", "transformers", "missing"], "missing does not exist"),
    (["merge", "transformers", "notes.txt"], "notes.txt is a file"),
    (["repair", "transformerz", "class"], "unknown assignment 'transformerz'"),
    (["repair", "transformers", "notes.txt"], "is a .txt file"),
    (["repair", "transformers", "class", "--out", f"{OTHER_RUN}/nbgrader/repair"], "is in a run of rnn_attention"),
    # authoring
    (["catalog", "--root", "missing"], "--root missing does not exist"),
    (["hygiene", "transformerz"], "unknown assignment 'transformerz'"),
    (["hygiene", "--root", "toy-course", "rnn_attention"], "choose one of: toy"),
    (["claims", "transformers", "transformerz"], "unknown assignment 'transformerz'"),
    (["selftest", "transformerz"], "unknown assignment 'transformerz'"),
    (["selftest", "transformers", "--mutant", "no_such_mutant"], "'no_such_mutant' is no mutant of transformers"),
    (["selftest", "--repeats", "0"], "--repeats: 0 is less than 1"),
    (["lms", "transformerz"], "unknown assignment 'transformerz'"),
    (["stand-in-hub", "notes.txt"], "notes.txt is a file; give a folder"),
    (["stand-in-hub"], "the following arguments are required: directory"),
    # maintenance
    (["gradescope-zip", "transformerz"], "unknown assignment 'transformerz'"),
    (["gradescope-zip", "transformers", "--out", "class"], "--out class is a folder; give the path of a .zip"),
    (["gradescope-zip", "transformers", "--out", "bundle.tar"], "does not end in .zip"),
    (["image", "transformerz"], "unknown assignment 'transformerz'"),
    (["image", "transformers", "--out", "notes.txt"], "--out notes.txt is a file"),
    (["prairielearn", "transformerz", "--job", "job"], "unknown assignment 'transformerz'"),
    (["prairielearn", "transformers", "--job", "missing"], "no job folder at missing"),
    (["lock", "--python", "2.7"], "--python 2.7 is not a Python the course supports"),
    (["clean", "--term", "../.."], "no term folder grades/../.."),
    (["clean", "--term", "1999-spring"], "no term folder grades/1999-spring"),
    (["clean", "--root", "missing"], "--root missing does not exist"),
    (["demo", "--buggy", "-1"], "--buggy: -1 is less than 0"),
    (["demo", "--workers", "0"], "--workers: 0 is less than 1"),
    # the top level
    (["gradez", "transformers"], "invalid choice: 'gradez'"),
    ([], "the following arguments are required: command"),
]


def registered() -> dict:
    return build_parser().commands()


def work(tmp_path: Path) -> Path:
    """The working folder each case runs in: a class folder, files of the wrong kind, a run of another
    assignment, a course of its own (toy-course) and a job folder."""
    folder = tmp_path / "work"
    (folder / "class").mkdir(parents=True)
    (folder / "class" / "ada.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4}))
    (folder / "notes.txt").write_text("not a download\n")
    (folder / "broken.zip").write_bytes(b"PK\x03\x04 cut short")
    (folder / "roster.csv").write_text("name;points\nada;3\n")  # a CSV, but not Canvas's gradebook export
    (folder / "broken.json").write_text('{"assignment": ')
    (folder / "empty").mkdir()
    other = folder / OTHER_RUN
    (other / "results").mkdir(parents=True)
    (other / "nbgrader" / "course").mkdir(parents=True)
    (other / "nbgrader" / "course" / "gradebook.db").write_bytes(b"")
    (other / "intake.json").write_text(json.dumps({"assignment": "rnn_attention", "source": "x"}))
    record = {"assignment": "rnn_attention", "student": "ada", "door": "standalone"}
    (other / "results" / "ada.json").write_text(json.dumps(record))
    (folder / "manifest-only").mkdir()
    (folder / "manifest-only" / "intake.json").write_text(json.dumps({"assignment": "transformers"}))
    (folder / "mixed" / "results").mkdir(parents=True)
    (folder / "mixed" / "results" / "ada.json").write_text(json.dumps({**record, "assignment": "transformers"}))
    (folder / "mixed" / "results" / "notes.json").write_text(json.dumps(["not", "a", "record"]))
    (other / "shard.json").write_text(json.dumps({"shard": "0/1"}))
    (folder / "toy-course" / "source" / "toy").mkdir(parents=True)
    (folder / "toy-course" / "source" / "toy" / "toy.ipynb").write_text("{}")
    (folder / "job" / "student").mkdir(parents=True)
    return folder


def snapshot(*roots: Path) -> dict[str, tuple]:
    """Every file and folder under ``roots``: its kind, size and modification time."""
    seen = {}
    for root in roots:
        if not root.exists():
            seen[str(root)] = None
            continue
        for folder, dirs, files in os.walk(root):
            for name in [*dirs, *files, ""]:
                path = Path(folder, name)
                info = path.lstat()
                seen[str(path)] = (path.is_dir(), info.st_size, info.st_mtime_ns)
    return seen


def course_outputs() -> list[Path]:
    """Where the commands write by default in this checkout. Of build/, only what `course` itself puts
    there: CI's other stages write their logs, the docs, the toy course and its image into build/ while
    these tests run, and a snapshot of all of it failed on their writes, not on a refused command's."""
    course = default()
    build = course.build_dir
    staged = sorted(build.glob("release-*")) if build.is_dir() else []  # release's staging areas
    images = [build / "image" / name for name in course.order]  # `course image`'s default --out
    return [
        course.root / "grades",
        *staged,
        build / "cluster",
        build / "demo",
        *images,
        course.dist_dir,
        course.root / "locks",
    ]


def run_in_process(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's own refusals (and --help) leave through SystemExit
        code = stop.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_refusal(argv, code, out, err, phrase):
    command = argv[0] if argv and not argv[0].startswith("-") and argv[0] in registered() else None
    assert code == 2, f"course {shlex.join(argv)} exited {code}:\n{out}{err}"
    assert "Traceback" not in out + err
    assert out == "", f"course {shlex.join(argv)} printed to stdout:\n{out}"
    assert err.endswith("\n") and err.count("\n") == 1, f"more than one line:\n{err}"
    assert err.isprintable() or err[:-1].isprintable(), f"unprintable characters reached the terminal: {err!r}"
    assert err.startswith(f"course {command}: " if command else "course: "), err
    assert phrase in err, f"{phrase!r} not in {err!r}"


def test_every_command_has_a_case_and_one_group():
    names = list(registered())
    grouped = [name for group in GROUPS for name in group.commands]
    assert len(grouped) == len(set(grouped)), "a command is listed in two groups"
    assert sorted(set(names) - set(grouped)) == [], "add these commands to a group of assignments.cli.GROUPS"
    assert sorted(set(grouped) - set(names)) == [], "GROUPS names commands that do not exist"
    covered = {argv[0] for argv, _ in CASES if argv}
    assert sorted(set(names) - covered) == [], "feed these commands bad input in CASES"


def test_course_help_lists_the_commands_by_job_the_terms_in_workflow_order(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    positions = [text.index(f"\n{group.title}:\n") for group in GROUPS]
    assert positions == sorted(positions) and [g.title for g in GROUPS] == ["the term", "authoring", "maintenance"]
    listed = [
        line.split()[0] for line in text.splitlines() if line.startswith("  ") and line.split()[0] in registered()
    ]
    assert listed[: len(registered())] == [name for group in GROUPS for name in group.commands]
    term = GROUPS[0].commands
    assert term.index("release") < term.index("grade") < term.index("formgrader") < term.index("export")
    assert "other commands" not in text


def test_every_command_has_an_example_the_parser_takes(capsys):
    parser = build_parser()
    for name, sub in parser.command_parsers().items():
        lines = examples(sub)
        assert lines, f"`course {name} --help` has no example"
        assert any(shlex.split(line)[1] == name for line in lines), f"no example of `course {name}`"
        assert "Example" in sub.format_help()
        for line in lines:
            words = shlex.split(line)
            assert words[0] == "course", line
            args = build_parser().parse_args(words[1:])  # options spelled as the parser has them
            given = getattr(args, "assignment", None)
            for assignment in [given] if isinstance(given, str) else given or []:
                assert assignment in known_assignments(default()), f"{line}: no assignment {assignment!r}"
    assert capsys.readouterr().err == ""


def test_each_assignment_argument_lists_the_choices(capsys):
    for name in ("grade", "export", "release"):
        with pytest.raises(SystemExit):
            main([name, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "one of: transformers, rnn_attention, transfer_lm" in text, text


@pytest.mark.parametrize("argv, phrase", CASES, ids=[shlex.join(argv) or "(nothing)" for argv, _ in CASES])
def test_bad_input_gets_one_line_exit_2_and_nothing_written(argv, phrase, tmp_path, monkeypatch, capsys):
    folder = work(tmp_path)
    monkeypatch.chdir(folder)
    before = snapshot(folder, *course_outputs())
    code, out, err = run_in_process(argv, capsys)
    assert_one_line_refusal(argv, code, out, err, phrase)
    assert snapshot(folder, *course_outputs()) == before, "a refused command wrote something"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_download_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    folder = work(tmp_path)
    locked = folder / "locked.zip"
    with zipfile.ZipFile(locked, "w") as archive:
        archive.writestr("ada.ipynb", "{}")
    locked.chmod(0)
    monkeypatch.chdir(folder)
    try:
        code, out, err = run_in_process(["grade", "transformers", "locked.zip"], capsys)
    finally:
        locked.chmod(0o600)
    assert_one_line_refusal(["grade"], code, out, err, "locked.zip cannot be read (permissions)")


def course_script() -> Path | None:
    found = shutil.which("course", path=str(Path(sys.executable).parent))
    return Path(found) if found else None


@pytest.mark.parametrize(
    "argv, phrase",
    [
        (["grade", "transformerz", "class"], "unknown assignment 'transformerz'"),
        (["grade", "transformers", "/nonexistent.zip"], "/nonexistent.zip does not exist"),
        (["export", "transformers", "--results", f"{OTHER_RUN}/results"], "holds rnn_attention's results"),
    ],
)
def test_the_installed_course_command_refuses_the_same_way(argv, phrase, tmp_path):
    script = course_script()
    if script is None:
        pytest.skip("no `course` script beside this Python (pip install -e . makes it)")
    folder = work(tmp_path)
    before = snapshot(folder, *course_outputs())
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([str(script), *argv], cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    assert_one_line_refusal(argv, done.returncode, done.stdout, done.stderr, phrase)
    assert snapshot(folder, *course_outputs()) == before
