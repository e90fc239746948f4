"""Several TAs on one formgrader server: one token per TA (``TaTokens``, the server's identity provider).

nbgrader's documented setup for several graders of one class is one shared formgrader server that every
grader reaches (its docs: a JupyterHub service running one notebook server for the course). ``course
formgrader --ta NAME ...`` is that shape without a hub: one server, one process, one gradebook, and one
token per TA. One server rather than one per TA because nbgrader's gradebook is a SQLite file and
formgrader keeps one database session for the life of its server: requests are served one at a time by
the server's event loop, so two TAs' saves never race, and every page shows what the other TA saved. Two
servers on one gradebook would each keep their own session, write to one file from two processes, and
show a TA what their own server last read (``formgrader.CourseLock`` refuses a second server).

The server is given each TA's name and the SHA-256 of their token (on its command line, which other
users of the machine may read: a digest of a 256-bit random token gives them nothing). A request that
carries a TA's token (``?token=`` in the URL, ``Authorization: token ...``, or typed into the login page)
signs that TA in; Jupyter's signed cookie then names the TA, and a cookie naming someone no longer on the
list, or signed while other tokens were in force, is refused. The server's log names the TA behind
every grade or comment saved (``formgrader_extension``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import stat
from pathlib import Path

from jupyter_server.auth.identity import IdentityProvider, User
from traitlets import Dict

TA_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
TOKEN_CHARS = 32  # the shortest token accepted from a tokens file (drawn ones are 43 characters)


def check_name(name: str) -> str:
    """A TA's name as the server, its log and the cookie carry it: letters, digits, ``_.-``, 40 at most."""
    if not TA_NAME.match(name):
        raise ValueError(f"TA name {name!r}: use letters, digits, '_', '.' or '-' (at most 40, starting with one)")
    return name


def draw_tokens(names: list[str]) -> dict[str, str]:
    """A fresh random token for each TA (256 bits, URL-safe)."""
    names = [check_name(name) for name in names]
    if len(set(names)) != len(names):
        raise ValueError(f"a TA is named twice: {sorted(n for n in set(names) if names.count(n) > 1)}")
    return {name: secrets.token_urlsafe(32) for name in names}


def read_tokens(path: Path) -> dict[str, str]:
    """TA name -> token from a file of ``name token`` lines (``#`` starts a comment), which only its owner
    may read: tokens kept from one server start to the next. Raises ValueError saying what is wrong."""
    path = Path(path)
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ValueError(f"{path} can be read by other users (mode {stat.S_IMODE(mode):o}); chmod 600 it")
    tokens: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{path}, line {number}: expected 'name token'")
        name, token = check_name(parts[0]), parts[1]
        if len(token) < TOKEN_CHARS:
            raise ValueError(f"{path}, line {number}: {name}'s token is shorter than {TOKEN_CHARS} characters")
        if name in tokens:
            raise ValueError(f"{path}, line {number}: {name} is named twice")
        tokens[name] = token
    if not tokens:
        raise ValueError(f"{path} names no TA")
    if len(set(tokens.values())) != len(tokens):
        raise ValueError(f"{path}: two TAs share a token")
    return tokens


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def digests(tokens: dict[str, str]) -> dict[str, str]:
    """TA name -> the SHA-256 of their token: what the server is given."""
    return {name: digest(token) for name, token in tokens.items()}


class TaTokens(IdentityProvider):
    """Signs in the TA whose token a request carries; the cookie it sets names that TA."""

    token_hashes = Dict({}, help="TA name -> hex SHA-256 of that TA's token (course formgrader --ta / --tokens)").tag(
        config=True
    )

    def _ta_for(self, token: str | None) -> str | None:
        if not token:
            return None
        presented = digest(token)
        found = None
        for name, expected in self.token_hashes.items():
            if hmac.compare_digest(presented, str(expected)):  # every TA compared: the time says nothing
                found = name
        return found

    @staticmethod
    def _user(name: str) -> User:
        return User(username=name, name=name, display_name=name)

    async def get_user_token(self, handler) -> User | None:
        name = self._ta_for(self.get_token(handler))
        if name is None:
            return None
        self.log.info("formgrader: %s signed in with their token from %s", name, handler.request.remote_ip)
        return self._user(name)

    def user_from_cookie(self, cookie_value: str) -> User | None:
        user = super().user_from_cookie(cookie_value)
        return user if user is not None and user.username in self.token_hashes else None

    def process_login_form(self, handler) -> User | None:
        name = self._ta_for(handler.get_argument("password", default=""))
        return None if name is None else self._user(name)

    def cookie_secret_hook(self, h):
        """A cookie signed while other tokens were in force does not sign anyone in."""
        h.update(json.dumps(sorted(self.token_hashes.items())).encode("utf-8"))
        return h
