"""``course formgrader ASSIGNMENT``: nbgrader's formgrader on the course folder, for grading written answers.

A Jupyter server with nbgrader's server extensions runs in the course folder that holds the assignment's
gradebook (``Run.of_term(assignment).course``: the course folder of this term's run of the
assignment, which ``course grade`` or ``course autograde`` made; ``--root`` names another, the demo's
``grades/demo/<assignment>/nbgrader/course`` for instance). It listens on 127.0.0.1 only and asks for a
random token, so other users of the machine cannot grade. Hand grades and comments saved there are read
back by ``course export``.

The server runs nbgrader's formgrader through ``formgrader_extension``: submissions are shown inert,
every page carries a Content-Security-Policy, and Jupyter's own APIs (kernels, terminals, files) are
refused (``FormgraderOnly``), because a submission's page is open in the TA's session.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from assignments.grading.doors.nbgrader import cli as nbgrader_cli

HOST = "127.0.0.1"


@dataclass
class Server:
    process: subprocess.Popen
    root: Path
    port: int
    token: str

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"

    def url(self, path: str = "formgrader") -> str:
        return f"{self.base}/{path.lstrip('/')}?token={self.token}"

    def stop(self, timeout: float = 15) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def start(
    root: Path, port: int | None = None, token: str | None = None, log=None, ready_timeout: float = 120
) -> Server:
    """Start ``jupyter server`` with nbgrader's extensions in ``root``; returns once formgrader answers.

    nbgrader reads ``nbgrader_config.py`` from the server's working folder, so the course folder is both
    the working folder and the server's root."""
    root = Path(root).resolve()
    if not (root / "gradebook.db").is_file():
        raise FileNotFoundError(
            f"no gradebook in {root}; grade the assignment first (`course autograde` or `course grade`)"
        )
    port = port or free_port()
    token = token or secrets.token_urlsafe(24)
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "server",
        "--no-browser",
        f"--ServerApp.ip={HOST}",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        f"--IdentityProvider.token={token}",
        "--ServerApp.jpserver_extensions={'assignments.handgrading.formgrader_extension': True}",
        "--ServerApp.authorizer_class=assignments.handgrading.formgrader_extension.FormgraderOnly",
        "--ServerApp.terminals_enabled=False",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--ServerApp.allow_root=True")  # containers and CI run as root
    env = nbgrader_cli.environment(package_on_path=True)  # the extension is this package's
    env["JUPYTER_NO_CONFIG"] = "1"  # the instructor's own Jupyter config must not change this server
    process = subprocess.Popen(
        command,
        cwd=root,
        env=env,
        stdout=log or subprocess.DEVNULL,
        stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
    )
    server = Server(process, root, port, token)
    try:
        _wait_until_ready(server, ready_timeout)
    except BaseException:
        server.stop()
        raise
    return server


def _wait_until_ready(server: Server, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"the Jupyter server exited with code {server.process.returncode}")
        try:
            with urllib.request.urlopen(server.url("formgrader"), timeout=5) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    raise TimeoutError(f"formgrader did not answer on {server.base} within {timeout:.0f} s")
