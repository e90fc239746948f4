"""The tutorial (docs/tutorial.md), run as a reader runs it: every command of its `console` blocks, in order,
on the toy course, each checked against the output the page shows; its `toml` block applied to the course's
pyproject.toml as the page says (each key set in the table of the same name).

The commands run from a folder laid out as the repository's root (links to its Makefile, .venv, package,
tests and locks), so the page's relative paths (`build/tutorial`) land in the test's own scratch folder and
`make tutorial-course` runs the Makefile's real target. What the page shows must appear in what the command
prints, line by line and in order; `...` in a shown line stands for anything (a timing, a port, the folder
above `build/`). `course formgrader` is a server: the test waits for the lines the page shows, opens the
printed address, and stops it with Ctrl-C (SIGINT) as the page says.

Needs: `make`, the sandbox the grader runs students' code in (as every grading test), nbgrader and Jupyter
Server (formgrader). About a minute on 2 cores.
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

import pytest

from assignments.course import REPO
from tests.helpers import tool_unavailable

PAGE = REPO / "docs" / "tutorial.md"
LINKED = ("Makefile", ".venv", "assignments", "tests", "locks", "pyproject.toml")
FENCE = re.compile(r"^```(\w+)\n(.*?)^```\s*$", re.S | re.M)
SERVER = "course formgrader"
COMMAND_TIMEOUT_S = 300


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


def serve(command: str, shown: list[str], root: Path, env: dict) -> str:
    """Start the server, wait for the lines the page shows, open the address it printed, stop it with Ctrl-C."""
    server = subprocess.Popen(
        ["bash", "-c", f"exec {command}"],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
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
        (url,) = re.findall(r"https?://127\.0\.0\.1:\d+/\S+", printed)
        with urllib.request.urlopen(url, timeout=60) as page:
            assert page.status == 200, f"formgrader answered {page.status} at the printed address"
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    return printed


def test_every_command_of_the_tutorial_prints_what_the_page_shows(root):
    env = environment(root)
    page = blocks(PAGE.read_text(encoding="utf-8"))
    assert [language for language, _ in page].count("console") >= 5, "the tutorial lost its commands"
    ran = []
    for language, body in page:
        if language == "toml":
            apply_settings(body, root / "build" / "tutorial" / "pyproject.toml")
            continue
        if language != "console":
            continue
        for command, shown in steps(body):
            started = time.monotonic()
            printed = serve(command, shown, root, env) if command.startswith(SERVER) else run(command, root, env)
            missing = unmatched(shown, printed)
            assert not missing, (
                f"`{command}` did not print, in this order, the page's lines {missing}; it printed:\n{printed}"
            )
            ran.append(f"{time.monotonic() - started:5.1f} s  {command}")
    print("\n".join(ran))
    assert any(command.split()[-1] and "course grade" in command for command in ran), "the tutorial grades nothing"
