"""Every command the documentation shows is one the project has: each `course ...` line of a page's fenced
blocks parses with the real command line's parser (its command, its flags, their values), each `course ...`
in running text names a command and only flags that command takes, and each `make <target>` is a target of
the Makefile or make/. A renamed flag or command (#49 moved many) fails here, naming the page and the line,
rather than in a reader's terminal.

Parsing is all this checks; the tutorial, the large-class guide and the add-a-question how-to are also run
whole (tests/docs/test_tutorial.py, tests/rehearsals/test_slurm.py, tests/docs/test_add_question.py).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from assignments.cli import build_parser
from assignments.course import REPO

PAGES = sorted((REPO / "docs").rglob("*.md")) + [REPO / "README.md"]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\s*$", re.S | re.M)
SHELLS = {"console", "bash", "sh", "shell", ""}
INLINE = re.compile(r"`(course [^`]+)`")
MAKE = re.compile(r"(?:`|^\$ |^)make ((?:[a-z][\w.-]*(?: |(?=[`\n])))+)", re.M)  # in code, or a block's line
TARGET = re.compile(r"^([a-zA-Z][\w.-]*)\s*:(?!=)", re.M)


def fenced_commands(text: str) -> list[str]:
    """The `course` command lines of the page's shell blocks, continuation lines joined, prompts and
    comments dropped."""
    found = []
    for language, body in FENCE.findall(text):
        if language not in SHELLS:
            continue
        console = language == "console"
        logical, pending = [], ""
        for line in body.splitlines():
            if console and not pending and not line.startswith("$ "):
                continue  # what the command printed
            line = line[2:] if line.startswith("$ ") and not pending else line
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            logical.append(pending + line)
            pending = ""
        for line in logical:
            if line.split()[:1] == ["course"]:
                words = shlex.split(line, comments=True)
                found.append(" ".join(shlex.quote(w) for w in words))
    return found


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def parse_error(parser: argparse.ArgumentParser, words: list[str]) -> str | None:
    """What the parser says of ``words``, or None when it takes them."""
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(words)
    except SystemExit as exiting:
        if exiting.code not in (0, None):
            return said.getvalue().strip().splitlines()[-1] if said.getvalue().strip() else f"exit {exiting.code}"
    return None


def shown(page: Path) -> str:
    return str(page.relative_to(REPO))


@pytest.fixture(scope="module")
def parser():
    return build_parser()


def test_the_checks_find_what_the_pages_hold_and_refuse_a_wrong_flag(parser):
    """A regex that matched nothing, or a parser that took anything, would pass every test below."""
    readme = (REPO / "README.md").read_text()
    assert len(fenced_commands((REPO / "docs" / "tutorial.md").read_text())) >= 10
    assert len(INLINE.findall(readme)) >= 3
    assert {"demo", "test"} <= set(" ".join(MAKE.findall(readme)).split())
    [line] = fenced_commands("```console\n$ course grade toy class.zip \\\n    --no-such-flag  # wrong\n```\n")
    assert "--no-such-flag" in (parse_error(parser, shlex.split(line)[1:]) or ""), line


@pytest.mark.parametrize("page", PAGES, ids=shown)
def test_every_course_command_in_a_shell_block_parses(page, parser):
    wrong = []
    for line in fenced_commands(page.read_text(encoding="utf-8")):
        error = parse_error(parser, shlex.split(line)[1:])
        if error:
            wrong.append(f"{line}\n    {error}")
    assert not wrong, f"{shown(page)} shows commands the CLI refuses:\n" + "\n".join(wrong)


@pytest.mark.parametrize("page", PAGES, ids=shown)
def test_every_course_command_in_the_text_names_a_command_and_its_flags(page, parser):
    commands = subcommands(parser)
    wrong = []
    for span in INLINE.findall(page.read_text(encoding="utf-8")):
        words = span.split()
        name = words[1] if len(words) > 1 else ""
        if name.startswith("-") or name in ("...", "<command>"):
            continue  # `course --help`, or a pattern for any command
        sub = commands.get(name)
        if sub is None:
            wrong.append(f"`{span}`: no command {name!r}")
            continue
        known = {option for action in sub._actions for option in action.option_strings}
        for word in words[2:]:
            flag = word.split("=")[0].rstrip(",.;:)")
            if flag.startswith("--") and flag not in known:
                wrong.append(f"`{span}`: course {name} has no {flag}")
    assert not wrong, f"{shown(page)}:\n" + "\n".join(wrong)


def test_every_make_target_the_pages_name_exists():
    targets = set()
    for makefile in [REPO / "Makefile", *sorted((REPO / "make").glob("*.mk"))]:
        targets |= set(TARGET.findall(makefile.read_text()))
    wrong = []
    for page in PAGES:
        for named in MAKE.findall(page.read_text(encoding="utf-8")):
            for target in named.split():
                if "=" not in target and target not in targets:
                    wrong.append(f"{shown(page)}: make {target}")
    assert not wrong, "pages name make targets the Makefile does not have:\n" + "\n".join(wrong)
