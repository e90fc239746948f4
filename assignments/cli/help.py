"""How ``course`` explains itself: ``course --help`` lists the commands by job (``GROUPS`` in ``__init__``),
every command's help ends with an ``Example:``, and input the parser refuses gets one line and exit status 2.

``add_command`` is how a command module registers a command: it takes the one-line help, the example(s)
and an optional longer description, and gives the command the course's parser class and formatter.
"""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import dataclass


@dataclass(frozen=True)
class Group:
    """One section of ``course --help``: a job, a sentence about it, and its commands in the order listed."""

    title: str
    summary: str
    commands: tuple[str, ...]


class Formatter(argparse.HelpFormatter):
    """Fills prose to the terminal's width, paragraph by paragraph, and keeps indented lines (the examples'
    command lines) exactly as written."""

    def _fill_text(self, text, width, indent):
        lines: list[str] = []
        prose: list[str] = []

        def flush():
            if prose:
                lines.extend(
                    textwrap.wrap(
                        " ".join(prose),
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                        break_long_words=False,
                        break_on_hyphens=False,  # `course gradescope-zip` stays one word
                    )
                )
                prose.clear()

        for line in text.strip("\n").splitlines():
            if not line.strip():
                flush()
                lines.append("")
            elif line.startswith(" "):
                flush()
                lines.append(indent + line)
            else:
                prose.append(line.strip())
        flush()
        return "\n".join(lines)


class CourseParser(argparse.ArgumentParser):
    """The parser of ``course`` and of each of its commands (argparse makes subparsers of the parent's class).

    ``groups``: the top level's sections (``Group``); its help lists the commands under them, and a command
    no group names under "other commands" (a test fails on that). ``error``: one line, exit status 2."""

    def __init__(self, *args, groups: tuple[Group, ...] = (), **kwargs):
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)
        self.groups = groups

    def error(self, message):
        self.exit(2, f"{self.prog}: {' '.join(message.split())}; see `{self.prog} --help`\n")

    def commands(self) -> dict[str, argparse.Action]:
        """Each command's name -> the entry argparse lists it by (its one-line help), in registration order."""
        action = self._command_action()
        return {entry.dest: entry for entry in action._choices_actions} if action else {}

    def command_parsers(self) -> dict[str, CourseParser]:
        """Each command's name -> its own parser (its arguments, description and examples)."""
        action = self._command_action()
        return dict(action.choices) if action else {}

    def _command_action(self):
        return next((a for a in self._actions if isinstance(a, argparse._SubParsersAction)), None)

    def format_help(self) -> str:
        if not self.groups:
            return super().format_help()
        formatter = self._get_formatter()
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        formatter.add_text(self.description)
        entries = self.commands()
        sections = [(group.title, group.summary, group.commands) for group in self.groups]
        grouped = {name for group in self.groups for name in group.commands}
        sections.append(("other commands", "", tuple(name for name in entries if name not in grouped)))
        for title, summary, names in sections:
            listed = [entries[name] for name in names if name in entries]
            if not listed:
                continue
            formatter.start_section(title)
            formatter.add_text(summary)
            formatter.add_arguments(listed)
            formatter.end_section()
        formatter.start_section("options")
        formatter.add_arguments([a for a in self._actions if a.option_strings])
        formatter.end_section()
        formatter.add_text(self.epilog)
        return formatter.format_help()


def add_command(sub, name: str, *, help: str, example: str | list[str], description: str | None = None):
    """Register the command ``name``: ``help`` is its line in ``course --help`` (and the start of its own
    help unless ``description`` says more), ``example`` one or more realistic command lines, shown last."""
    examples = [example] if isinstance(example, str) else list(example)
    heading = "Example:" if len(examples) == 1 else "Examples:"
    lead = help[:1].upper() + help[1:] + ("" if help.endswith(".") else ".")
    return sub.add_parser(
        name,
        help=help,
        description=description or lead,
        epilog=heading + "\n" + "\n".join(f"  {line}" for line in examples),
    )


def examples(parser: argparse.ArgumentParser) -> list[str]:
    """The command lines of a command's ``Example:`` (for the tests and the docs)."""
    return [line.strip() for line in (parser.epilog or "").splitlines()[1:] if line.strip()]
