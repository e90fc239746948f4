"""``course stand-in-hub``: tiny models and small datasets under the notebooks' hub ids, for offline rehearsals
(``demo/standin_hub.py``)."""

from __future__ import annotations

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.demo.standin_hub import main as write_hub


def cmd_stand_in_hub(args) -> int:
    return write_hub([str(args.directory)])


def register(sub) -> None:
    parser = add_command(
        sub,
        "stand-in-hub",
        help="write tiny models and small datasets under the notebooks' hub ids "
        "into a local Hugging Face cache (for offline rehearsals)",
        example="course stand-in-hub build/hub",
    )
    arguments.output_folder(parser, "directory", help="the cache folder to write (made if missing)", run=False)
    parser.set_defaults(func=cmd_stand_in_hub)
