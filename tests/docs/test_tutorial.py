"""The tutorial (docs/tutorial.md), run as a reader runs it: the whole term on the toy course. Every command
of its `console` blocks runs, in order, each checked against the output the page shows; its `toml` block is
applied to the course's pyproject.toml as the page says (each key set in the table of the same name); and
what it tells the TAs to do is done as they would: its grading table (TA, student, points, comment), each TA
through their own address of the formgrader it started, both at once, as their browsers call formgrader's
API (issue #45's whole term: publish, a Canvas download graded with a roster, two TAs at once, the exports,
the feedback re-upload zip, no pending point posted as 0, PrairieLearn under its quota).

The commands run from a folder laid out as the repository's root (links to its Makefile and make/, .venv, package,
tests and locks), so the page's relative paths (`build/tutorial`) land in the test's own scratch folder and
`make tutorial-course` runs the Makefile's real target. What the page shows must appear in what the command
prints, line by line and in order; `...` in a shown line stands for anything (a timing, a port, the folder
above `build/`). `course formgrader` is a server: the test waits for the lines the page shows, opens the
printed addresses, grades as the page's table says, and stops it with Ctrl-C (SIGINT) as the page says.
`course prairielearn --quota` needs root and a cgroup hierarchy: without them that one command is left out
(and the test fails instead with COURSE_REQUIRE_ISOLATION=1, as CI sets).

Needs: `make`, the sandbox the grader runs students' code in (as every grading test), nbgrader and Jupyter
Server (formgrader). A few minutes on 2 cores (the release runs real nbgrader).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from assignments.course import REPO, Course
from assignments.exports import nbgrader_gradebook
from assignments.platforms import container_limits
from assignments.release.publish import tree_leaks
from tests.fixtures import tutorial
from tests.handgrading.test_graders import call
from tests.helpers import tool_unavailable

PAGE = REPO / "docs" / "tutorial.md"
LINKED = ("Makefile", "make", ".venv", "assignments", "tests", "locks", "pyproject.toml")
FENCE = re.compile(r"^```(\w+)\n(.*?)^```\s*$", re.S | re.M)
SERVER = "course formgrader"
QUOTA = "--quota"
COMMAND_TIMEOUT_S = 300
# The page's table of what each TA grades: | TA | student | points | comment |
GRADING_TABLE = re.compile(r"^\| TA \| student \| points \| comment \|\n\|[-| ]+\|\n((?:\|.*\|\n)+)", re.M)
TA_ADDRESS = re.compile(r"^\s+(\w+): (https?://127\.0\.0\.1:\d+)/formgrader\?token=(\S+)$", re.M)


def blocks(text: str) -> list[tuple[str, str]]:
    """The page's fenced blocks in order, as (language, body)."""
    return [(match.group(1), match.group(2)) for match in FENCE.finditer(text)]


def steps(body: str) -> list[tuple[str, list[str]]]:
    """A console block's commands, each with the output lines shown under it."""
    found: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        elif found:
            found[-1][1].append(line)
        else:
            raise AssertionError(f"a console block starts with output, not a command: {line!r}")
    return found


def pattern(shown: str) -> re.Pattern:
    return re.compile(".*".join(re.escape(part) for part in shown.rstrip().split("...")))


def unmatched(shown: list[str], printed: str) -> list[str]:
    """The shown lines (blank ones aside) not found in ``printed`` in the page's order."""
    lines = [line.rstrip() for line in re.split(r"[\r\n]+", printed)]
    at, missing = 0, []
    for line in (line for line in shown if line.strip()):
        wanted = pattern(line)
        for index in range(at, len(lines)):
            if wanted.fullmatch(lines[index]):
                at = index + 1
                break
        else:
            missing.append(line)
    return missing


def apply_settings(body: str, pyproject: Path) -> None:
    """The block's settings, made as a person edits the file: each key line replaces the line that sets the
    same key in the table of the same name in ``pyproject``, or goes right under that table's header."""
    text = pyproject.read_text(encoding="utf-8").splitlines(keepends=True)
    table = None
    for line in body.splitlines():
        if line.startswith("["):
            table = line.strip()
            headers = [i for i, existing in enumerate(text) if existing.strip() == table]
            assert len(headers) == 1, f"the page sets keys of {table}, which {pyproject} holds {len(headers)} times"
            start = headers[0] + 1
            end = next((i for i in range(start, len(text)) if text[i].startswith("[")), len(text))
            at = start
        elif line.strip():
            assert table, f"a settings line before any table: {line!r}"
            key = line.split("=", 1)[0].strip()
            same = [i for i in range(start, end) if text[i].split("=", 1)[0].strip() == key]
            if same:
                text[same[0]] = line + "\n"
            else:
                text.insert(at, line + "\n")
                at, end = at + 1, end + 1
    pyproject.write_text("".join(text), encoding="utf-8")


@pytest.fixture
def root(tmp_path) -> Path:
    """A folder that is the repository's root for the page's commands."""
    if shutil.which("make") is None:
        tool_unavailable("make is not installed")
    for name in LINKED:
        (tmp_path / name).symlink_to(REPO / name)
    return tmp_path


def environment(root: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(REPO)  # the package of this checkout, whatever the venv's editable install names
    env["PYTHONUNBUFFERED"] = "1"  # stdout and stderr in the order they were written
    return env


def run(command: str, root: Path, env: dict) -> str:
    if command.startswith("make "):
        # The page's venv is installed already: -o keeps make from installing it again over a newer
        # pyproject.toml (a fresh checkout's files are newer than the venv CI built from them).
        command = f"make -o {Path('.venv') / '.installed'} {command[len('make ') :]}"
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
    )
    assert done.returncode == 0, f"`{command}` exited {done.returncode}:\n{done.stdout[-4000:]}"
    return done.stdout


def grading_table(page: str) -> list[tuple[str, str, float, str]]:
    """The page's (TA, student, points, comment) rows."""
    match = GRADING_TABLE.search(page)
    assert match, "the tutorial lost its table of what each TA grades"
    rows = []
    for line in match.group(1).splitlines():
        ta, student, points, comment = (cell.strip() for cell in line.strip().strip("|").split("|"))
        rows.append((ta, student, float(points), comment))
    return rows


class _Address:
    """Where one TA's browser talks to formgrader (``call``'s server)."""

    def __init__(self, base: str):
        self.base = base


def grade_as_the_page_says(printed: str, rows: list, question: str = "scale_written") -> list:
    """Each TA grades their rows of the page's table through their own address, both at once: the calls a
    TA's formgrader page makes (find the answer's grade and comment, save the points, then the comment)."""
    addresses = {name: (_Address(base), token) for name, base, token in TA_ADDRESS.findall(printed)}
    assert {ta for ta, *_ in rows} <= set(addresses), f"the page grades as {rows}; formgrader printed {addresses}"
    start, done = threading.Barrier(len({ta for ta, *_ in rows})), []

    def grade(ta: str) -> None:
        server, token = addresses[ta]
        try:
            start.wait()
            status, submissions = call(server, "formgrader/api/submitted_notebooks/toy/toy", token)
            assert status == 200, f"{ta} could not list the submissions (HTTP {status})"
            ids = {submission["student"]: submission["id"] for submission in submissions}
            for who, student, points, comment in rows:
                if who != ta:
                    continue
                _, grades = call(server, f"formgrader/api/grades?submission_id={ids[student]}", token)
                _, comments = call(server, f"formgrader/api/comments?submission_id={ids[student]}", token)
                grade_id = next(g["id"] for g in grades if g["name"] == question)
                comment_id = next(c["id"] for c in comments if c["name"] == question)
                saved = call(server, f"formgrader/api/grade/{grade_id}", token, "PUT", {"manual_score": points})[0]
                said = call(server, f"formgrader/api/comment/{comment_id}", token, "PUT", {"manual_comment": comment})
                done.append((ta, student, saved, said[0]))
        except Exception as error:  # noqa: BLE001 - reported to the test below
            done.append((ta, "failed", repr(error)[:300], 0))

    threads = [threading.Thread(target=grade, args=(ta,)) for ta in sorted({ta for ta, *_ in rows})]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return done


def serve(command: str, shown: list[str], root: Path, env: dict, rows: list) -> str:
    """Start the server, wait for the lines the page shows, open each address it printed, do what the page's
    table tells each TA to do (both at once), and stop it with Ctrl-C."""
    server = subprocess.Popen(
        ["bash", "-c", f"exec {command}"],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        # As a terminal's foreground command: Ctrl-C's signal not ignored, even where the test runs with it
        # ignored (a background job of a script, whose children inherit that and so never see Ctrl-C).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    lines: list[str] = []

    def read() -> None:
        for line in server.stdout:
            lines.append(line)

    threading.Thread(target=read, daemon=True).start()
    try:
        deadline = time.monotonic() + COMMAND_TIMEOUT_S
        while unmatched(shown, "".join(lines)) and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.2)
        printed = "".join(lines)
        assert not unmatched(shown, printed), f"`{command}` did not print {unmatched(shown, printed)}:\n{printed}"
        urls = re.findall(r"https?://127\.0\.0\.1:\d+/\S+", printed)
        assert urls, f"`{command}` printed no address:\n{printed}"
        for url in urls:
            with urllib.request.urlopen(url, timeout=60) as page:
                assert page.status == 200, f"formgrader answered {page.status} at the printed address"
        if TA_ADDRESS.search(printed):
            done = grade_as_the_page_says(printed, rows)
            expected = sorted((ta, student, 200, 200) for ta, student, *_ in rows)
            assert sorted(done) == expected, f"the TAs' saves: {done}"
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"`{command}` did not stop within 60 s of Ctrl-C; it printed:\n{''.join(lines)[-2000:]}\n"
                f"{still_running(server.pid)}"
            ) from None
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    return "".join(lines)


def still_running(pid: int) -> str:
    """What of a stuck command is alive: each process of its session, its state and what it waits in."""
    lines = []
    for process in psutil.process_iter(["pid", "status", "cmdline"]):
        try:
            if os.getsid(process.pid) != pid:
                continue
            wchan = Path(f"/proc/{process.pid}/wchan").read_text(errors="replace")
        except (OSError, psutil.Error):
            continue
        lines.append(
            f"{process.pid} {process.info['status']} in {wchan or '?'}: {' '.join(process.info['cmdline'] or [])[:200]}"
        )
    return "still running:\n" + "\n".join(lines)


def test_the_whole_term_runs_as_the_tutorial_tells_it(root):
    env = environment(root)
    text = PAGE.read_text(encoding="utf-8")
    page, rows = blocks(text), grading_table(text)
    assert [language for language, _ in page].count("console") >= 8, "the tutorial lost its commands"
    no_quota = container_limits.unavailable()
    ran, left_out = [], []
    for language, body in page:
        if language == "toml":
            assert f'colab_url = "{tutorial.COLAB_URL}"' in body, (
                "the class was handed the release of another colab_url"
            )
            apply_settings(body, root / "build" / "tutorial" / "pyproject.toml")
            continue
        if language != "console":
            continue
        for command, shown in steps(body):
            if QUOTA in command.split() and no_quota:
                if os.environ.get("COURSE_REQUIRE_ISOLATION") == "1":
                    pytest.fail(f"`{command}` needs a cgroup here: {no_quota} (COURSE_REQUIRE_ISOLATION=1)")
                left_out.append(f"`{command}`: {no_quota}")
                continue
            started = time.monotonic()
            printed = serve(command, shown, root, env, rows) if command.startswith(SERVER) else run(command, root, env)
            missing = unmatched(shown, printed)
            assert not missing, (
                f"`{command}` did not print, in this order, the page's lines {missing}; it printed:\n{printed}"
            )
            ran.append(f"{time.monotonic() - started:5.1f} s  {command}")
    print("\n".join(ran + [f"left out: {line}" for line in left_out]))
    assert any("course grade" in command for command in ran), "the tutorial grades nothing"

    # What the page's output cannot show in full. The published tree holds no key (the release's leak scan),
    # and nothing but the student side.
    course, students = Course(root / "build" / "tutorial"), root / "build" / "students"
    assert tree_leaks(course, students, ["toy"], "build/students") == []
    shipped = sorted(str(path.relative_to(students)) for path in students.rglob("*") if path.is_file())
    assert shipped == [".published.json", "README.md", "toy/README.md", "toy/toy.ipynb"], shipped
    # Both TAs' grades and comments are in the gradebook every export reads.
    db = course.root / "grades" / "2026-autumn" / "toy" / "nbgrader" / "course" / "gradebook.db"
    hand = nbgrader_gradebook.read_hand_grades(f"sqlite:///{db}", "toy")
    for _, student, points, comment in rows:
        assert hand[student]["scale_written"] == nbgrader_gradebook.HandGrade(points, comment), (student, hand)
