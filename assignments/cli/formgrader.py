"""``course formgrader``: nbgrader's formgrader served on a run's course folder for hand grading, with a token
per TA (``handgrading/formgrader.py``)."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of
from assignments.escaping import one_line
from assignments.handgrading import formgrader, graders
from assignments.runs.folder import Run


def _access_ok(args, course) -> None:
    """The server's access from the command line (``formgrader.Access``), checked before anything starts
    and kept on ``args`` for the command: TA names, a tokens file, a network address and what it needs."""
    if args.ta and args.tokens:
        raise arguments.BadInput("give TAs with --ta (tokens drawn now) or with --tokens FILE, not both")
    try:
        tas = graders.read_tokens(args.tokens) if args.tokens else graders.draw_tokens(args.ta or [])
        access = formgrader.Access(args.ip, tas, args.allow_remote, args.public_host, args.certfile, args.keyfile)
        access.check()
    except OSError as error:  # a --tokens file that cannot be read
        raise arguments.BadInput(f"--tokens {one_line(str(args.tokens), 200)}: {error.strerror}") from None
    except ValueError as error:
        raise arguments.BadInput(one_line(str(error))) from None
    args.access = access


def cmd_formgrader(args) -> int:
    root = args.nbgrader_course or Run.of_term(course_of(args).assignment(args.assignment)).course
    access = args.access
    try:
        server = formgrader.start(root, args.port, access=access)
    except (FileNotFoundError, RuntimeError, TimeoutError) as error:
        print(f"formgrader did not start: {error}")
        return 1
    print(f"course folder: {server.root}")
    if access.tas:
        print("each TA's own address (send it to that TA alone; it signs them in):")
        for ta, url in server.ta_urls().items():
            print(f"  {ta}: {url}")
    else:
        print(f"formgrader: {server.url('formgrader')}")
    if not formgrader.is_loopback(access.ip) and not access.certfile:
        print(
            "WARNING: plain http on a network address: tokens and students' answers cross the network unencrypted; "
            "use --certfile/--keyfile, a TLS proxy, or an SSH tunnel to 127.0.0.1"
        )
    print(
        f"grade written answers under Manual Grading > {args.assignment}; then run "
        f"`course export {args.assignment}`. Ctrl-C stops the server.",
        flush=True,
    )
    # A service manager stops with SIGTERM: leave through `finally` so the server stops too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "formgrader",
        help="start nbgrader's formgrader (127.0.0.1, with a token; --ta for a token per TA) on the "
        "course folder holding the assignment's gradebook",
        example="course formgrader transformers --port 8910 --ta alice --ta bob",
    )
    arguments.assignment(parser, also=arguments.gradebook_assignments)
    arguments.gradebook_folder(parser)
    parser.add_argument("--port", type=arguments.port, default=None, help="default: a free port")
    parser.add_argument(
        "--ta",
        action="append",
        metavar="NAME",
        help="a TA who grades on this server (repeatable): each gets a token of their own, drawn now and printed",
    )
    parser.add_argument(
        "--tokens",
        type=Path,
        default=None,
        metavar="FILE",
        help="TAs' tokens kept from one start to the next: lines 'name token' in a file only you can read (chmod 600)",
    )
    parser.add_argument(
        "--ip",
        default=formgrader.HOST,
        help="the address to listen on (default 127.0.0.1: this machine only; TAs elsewhere use an SSH tunnel); "
        "any other needs --allow-remote and TA tokens",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="yes, other machines may reach this server on --ip (each TA still needs their token)",
    )
    parser.add_argument(
        "--public-host",
        default=None,
        metavar="NAME",
        help="the name TAs' browsers use for this server (needed with --ip 0.0.0.0; it goes into the printed URLs "
        "and the pages' Content-Security-Policy)",
    )
    parser.add_argument("--certfile", type=Path, default=None, help="TLS certificate (serve https)")
    parser.add_argument("--keyfile", type=Path, default=None, help="TLS private key")
    arguments.own_check(parser, _access_ok)
    parser.set_defaults(func=cmd_formgrader)
