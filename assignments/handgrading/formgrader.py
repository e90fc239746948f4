"""``course formgrader ASSIGNMENT``: nbgrader's formgrader on the course folder, for grading written answers.

A Jupyter server with nbgrader's server extensions runs in the course folder that holds the assignment's
gradebook (``Run.of_term(assignment).course``: the course folder of this term's run of the
assignment, which ``course grade`` or ``course autograde`` made; ``--root`` names another, the demo's
``grades/demo/<assignment>/nbgrader/course`` for instance). It listens on 127.0.0.1 only and asks for a
random token, so other users of the machine cannot grade. Hand grades and comments saved there are read
back by ``course export``.

The server runs nbgrader's formgrader through ``formgrader_extension``: submissions are shown inert,
every page carries a Content-Security-Policy, and Jupyter's own APIs (kernels, terminals, files) are
refused (``FormgraderOnly``), because a submission's page is open in the TA's session; so are formgrader's
own buttons that would run nbgrader's release, collect, autograde or feedback steps from a page.

Several TAs (``Access``): one server for the whole class, nbgrader's documented shape for several graders
(``graders.py`` says why one server and not one per TA), each TA with a token of their own (``--ta NAME``
draws one per start; ``--tokens FILE`` keeps them). By default the server listens on 127.0.0.1 only, and
TAs on other machines reach it through an SSH tunnel; a non-loopback address is refused unless the
instructor says so (``allow_remote``) and gives TA tokens, and then the name TAs' browsers use goes into
the pages' Content-Security-Policy. Over a network, serve it with TLS (``certfile``/``keyfile``) or behind
a TLS proxy: tokens and students' answers cross it. ``CourseLock`` keeps a second server off the same
course folder.
"""

from __future__ import annotations

import fcntl
import ipaddress
import os
import secrets
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from assignments.grading.doors.nbgrader import cli as nbgrader_cli
from assignments.handgrading import graders
from assignments.handgrading.formgrader_extension import HOSTS_VARIABLE

HOST = "127.0.0.1"
WILDCARDS = ("", "0.0.0.0", "::", "*")
LOCK_NAME = ".formgrader.lock"


def is_loopback(address: str) -> bool:
    """127.0.0.1, ::1, localhost: only this machine can connect. Any other name counts as the network."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Access:
    """Who may reach the server, and how. The default: this machine only, one random token."""

    ip: str = HOST
    tas: dict[str, str] = field(default_factory=dict)  # TA name -> token; empty: one random token
    allow_remote: bool = False  # the instructor's explicit yes to an address other machines can reach
    public_host: str | None = None  # the name TAs' browsers use (default: ``ip`` when it is one address)
    certfile: Path | None = None  # TLS: the server speaks https
    keyfile: Path | None = None

    def check(self) -> None:
        """Raises ValueError (one line, what to do) for an access the instructor did not ask for clearly."""
        if not is_loopback(self.ip):
            if not self.allow_remote:
                raise ValueError(
                    f"--ip {self.ip or '*'} lets other machines reach formgrader and the students' answers; "
                    "say so with --allow-remote (and give each TA a token with --ta or --tokens)"
                )
            if not self.tas:
                raise ValueError(f"--ip {self.ip or '*'} needs a token per TA: --ta NAME (repeatable) or --tokens FILE")
            if self.ip in WILDCARDS and not self.public_host:
                raise ValueError(
                    f"--ip {self.ip or '*'} listens on every address: say which name the TAs' browsers use "
                    "with --public-host"
                )
        if bool(self.certfile) != bool(self.keyfile):
            raise ValueError("TLS needs both --certfile and --keyfile")

    @property
    def scheme(self) -> str:
        return "https" if self.certfile else "http"

    @property
    def url_host(self) -> str:
        """The host in the URLs handed to TAs."""
        host = self.public_host or (HOST if self.ip in WILDCARDS else self.ip)
        return f"[{host}]" if ":" in host else host

    @property
    def probe_host(self) -> str:
        """Where this machine reaches the server to see that it answers."""
        if self.ip in WILDCARDS:
            return HOST
        return f"[{self.ip}]" if ":" in self.ip else self.ip

    def browser_hosts(self) -> list[str]:
        """Names other than this machine's loopback that TAs' browsers may use (for the CSP)."""
        hosts = [self.public_host] if self.public_host else []
        if self.ip not in WILDCARDS and not is_loopback(self.ip):
            hosts.append(self.ip)
        return sorted({h for h in hosts if h})


class CourseLock:
    """An exclusive lock on ``<course folder>/.formgrader.lock`` for as long as a formgrader server runs
    there (held by ``course formgrader`` and by the server process, which inherits it)."""

    def __init__(self, root: Path):
        self.path = Path(root) / LOCK_NAME
        self.handle = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.handle.seek(0)
            holder = self.handle.read().strip() or "another process"
            self.handle.close()
            raise RuntimeError(
                f"formgrader already runs on {root} ({holder}); give every TA that server's address with their own "
                "token (--ta) instead of starting a second server on the same gradebook"
            ) from None
        self.handle.seek(0)
        self.handle.truncate()
        self.handle.write(f"pid {os.getpid()}\n")
        self.handle.flush()

    def fileno(self) -> int:
        return self.handle.fileno()

    def release(self) -> None:
        if not self.handle.closed:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.handle.close()


@dataclass
class Server:
    process: subprocess.Popen
    root: Path
    port: int
    token: str  # the one token without TAs; with TAs, the first TA's
    access: Access = field(default_factory=Access)
    lock: CourseLock | None = None

    @property
    def base(self) -> str:
        return f"{self.access.scheme}://{self.access.url_host}:{self.port}"

    def url(self, path: str = "formgrader", ta: str | None = None) -> str:
        """``path`` with a token: ``ta``'s, else the server's one token (or, with TAs, the first TA's)."""
        token = self.access.tas[ta] if ta else self.token
        return f"{self.base}/{path.lstrip('/')}?token={token}"

    def ta_urls(self) -> dict[str, str]:
        return {ta: self.url("formgrader", ta) for ta in self.access.tas}

    def stop(self, timeout: float = 15) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        if self.lock is not None:
            self.lock.release()


def free_port(host: str = HOST) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.bind((host.strip("[]"), 0))
        return probe.getsockname()[1]


def start(
    root: Path,
    port: int | None = None,
    token: str | None = None,
    log=None,
    ready_timeout: float = 120,
    access: Access | None = None,
) -> Server:
    """Start ``jupyter server`` with nbgrader's extensions in ``root``; returns once formgrader answers.
    ``access``: who may reach it (``Access``; checked first: ValueError says what is missing).

    nbgrader reads ``nbgrader_config.py`` from the server's working folder, so the course folder is both
    the working folder and the server's root."""
    access = access or Access()
    access.check()
    root = Path(root).resolve()
    if not (root / "gradebook.db").is_file():
        raise FileNotFoundError(
            f"no gradebook in {root}; grade the assignment first (`course autograde` or `course grade`)"
        )
    lock = CourseLock(root)
    try:
        port = port or free_port(access.probe_host)
        token = next(iter(access.tas.values())) if access.tas else (token or secrets.token_urlsafe(24))
        command = [
            sys.executable,
            "-m",
            "jupyter",
            "server",
            "--no-browser",
            f"--ServerApp.ip={access.ip}",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.root_dir={root}",
            "--ServerApp.jpserver_extensions={'assignments.handgrading.formgrader_extension': True}",
            "--ServerApp.authorizer_class=assignments.handgrading.formgrader_extension.FormgraderOnly",
            "--ServerApp.terminals_enabled=False",
        ]
        if access.tas:
            command += [
                "--ServerApp.identity_provider_class=assignments.handgrading.graders.TaTokens",
                f"--TaTokens.token_hashes={graders.digests(access.tas)!r}",
            ]
        else:
            command.append(f"--IdentityProvider.token={token}")
        if access.certfile:
            command += [f"--ServerApp.certfile={access.certfile}", f"--ServerApp.keyfile={access.keyfile}"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--ServerApp.allow_root=True")  # containers and CI run as root
        env = nbgrader_cli.environment(package_on_path=True)  # the extension is this package's
        env["JUPYTER_NO_CONFIG"] = "1"  # the instructor's own Jupyter config must not change this server
        env[HOSTS_VARIABLE] = ",".join(access.browser_hosts())
        process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=log or subprocess.DEVNULL,
            stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
            pass_fds=(lock.fileno(),),  # the server holds the course folder's lock too
        )
    except BaseException:
        lock.release()
        raise
    server = Server(process, root, port, token, access, lock)
    try:
        _wait_until_ready(server, ready_timeout)
    except BaseException:
        server.stop()
        raise
    return server


def _wait_until_ready(server: Server, timeout: float) -> None:
    access = server.access
    probe = f"{access.scheme}://{access.probe_host}:{server.port}/formgrader?token={server.token}"
    # The server's own certificate may name only the public host, or be self-signed: this probe is on this
    # machine, to this process, and sends nothing but the token it already holds.
    context = ssl._create_unverified_context() if access.certfile else None  # noqa: S323
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"the Jupyter server exited with code {server.process.returncode}")
        try:
            with urllib.request.urlopen(probe, timeout=5, context=context) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    raise TimeoutError(f"formgrader did not answer on {server.base} within {timeout:.0f} s")
