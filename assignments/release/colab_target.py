"""Where ``[tool.course] colab_url`` sends students, and whether that place holds the answer key.

A Colab link in Colab's GitHub form (``/github/<owner>/<repo>/blob/<branch>/<path>`` after Colab's host
name) opens a notebook straight from a GitHub repository, and a student who has the link can browse that
repository. So the link must point at the student side published alone (``course publish``), never at the
course repository, which holds ``solutions/``, ``source/`` and ``autograder/``. Two checks say so:

- ``remote_problems``: the link's repository is one of this checkout's git remotes (offline, always run);
- ``listing_problems``: a listing of the repository's top folder (``fetch_listing``, GitHub's contents
  API; ``course publish --check-remote`` and ``course release --check-remote`` fetch it) shows
  ``solutions/`` or ``autograder/``.

A link to anything other than a GitHub repository (Colab's Drive links, a course website) is not judged here.
"""

from __future__ import annotations

import json
import re
import subprocess
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

# Colab's own form for a notebook in a GitHub repository (what its "GitHub" tab opens).
COLAB_GITHUB = re.compile(
    r"^https://colab\.research\.google\.com/github/(?P<owner>[^/]+)/(?P<repo>[^/]+)/blob/(?P<branch>[^/]+)/(?P<path>.+)$"
)
# The remote URL forms git accepts for github.com: https, ssh with or without a scheme, git://.
_GITHUB_REMOTE = re.compile(
    r"^(?:https?://(?:[^@/]+@)?github\.com/|ssh://git@github\.com[:/]|git@github\.com:|git://github\.com/)"
    r"(?P<owner>[^/]+)/(?P<repo>[^/]+?)(?:\.git)?/?$",
    re.IGNORECASE,
)
# Folders whose presence at a repository's top says it is a course repository with the answer key.
KEY_FOLDERS = ("solutions", "autograder")
GITHUB_API = "https://api.github.com"
LISTING_BYTES = 2_000_000  # a top folder's listing is a few kB; more is not GitHub's answer


@dataclass(frozen=True)
class GitHubTarget:
    """The GitHub repository, branch and path pattern a Colab URL pattern opens."""

    owner: str
    repo: str
    branch: str
    path: str  # with {assignment} and {notebook} still in it

    @property
    def key(self) -> tuple[str, str]:
        """(owner, repo) as GitHub compares them: without regard to letter case."""
        return self.owner.lower(), self.repo.lower()

    @property
    def name(self) -> str:
        return f"{self.owner}/{self.repo}"


def github_target(pattern: str) -> GitHubTarget | None:
    """The repository a ``colab_url`` pattern opens, or None when it is not Colab's GitHub form."""
    match = COLAB_GITHUB.match(pattern.strip())
    if not match:
        return None
    repo = match["repo"].removesuffix(".git")
    return GitHubTarget(match["owner"], repo, match["branch"], match["path"])


def github_remote(url: str) -> tuple[str, str] | None:
    """(owner, repo) in lower case of a git remote URL on github.com, else None."""
    match = _GITHUB_REMOTE.match(url.strip())
    return (match["owner"].lower(), match["repo"].lower()) if match else None


def remote_urls(root: Path) -> list[str]:
    """Every remote URL (fetch and push) of the git checkout at ``root``; empty where there is none."""
    try:
        found = subprocess.run(
            ["git", "-C", str(root), "config", "--get-regexp", r"^remote\..*\.(push)?url$"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.split(None, 1)[1] for line in found.stdout.splitlines() if len(line.split(None, 1)) == 2]


def remote_problems(pattern: str, root: Path) -> list[str]:
    """Why ``pattern`` must not go to students because it opens this checkout's own repository."""
    target = github_target(pattern)
    if target is None:
        return []
    mine = [url for url in remote_urls(root) if github_remote(url) == target.key]
    if not mine:
        return []
    return [
        f"[tool.course] colab_url opens {target.name}, which is this course repository (git remote {mine[0]}): "
        "it holds solutions/, source/ and autograder/, and every student with the link could read them. "
        "Publish the student side alone (`course publish DIR`), push DIR to a repository of its own and point "
        "colab_url there (docs/how-to/publish.md)"
    ]


def listing_problems(target: GitHubTarget, names: list[str]) -> list[str]:
    """Why ``target`` must not go to students, given the names at the top of its branch (``fetch_listing``)."""
    found = sorted({name.strip("/") for name in names} & set(KEY_FOLDERS))
    if not found:
        return []
    return [
        f"[tool.course] colab_url opens {target.name} (branch {target.branch}), whose top folder holds "
        f"{', '.join(name + '/' for name in found)}: a course repository with the answer key, which every student "
        "with the link could read. Point colab_url at the repository `course publish` fills (docs/how-to/publish.md)"
    ]


def fetch_listing(target: GitHubTarget, api: str = GITHUB_API, timeout: float = 20) -> list[str]:
    """The names at the top of ``target``'s branch, from GitHub's contents API (public repositories; a
    private one answers 404). Raises OSError when the listing cannot be had, ValueError when the answer is
    not a listing."""
    owner, repo = (urllib.parse.quote(part, safe="") for part in (target.owner, target.repo))
    query = urllib.parse.urlencode({"ref": target.branch})
    request = urllib.request.Request(
        f"{api.rstrip('/')}/repos/{owner}/{repo}/contents/?{query}",
        headers={"Accept": "application/vnd.github+json", "User-Agent": "course-publish-check"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        body = response.read(LISTING_BYTES + 1)
    if len(body) > LISTING_BYTES:
        raise ValueError("the listing is larger than any top folder's")
    entries = json.loads(body.decode("utf-8"))
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and isinstance(e.get("name"), str) for e in entries
    ):
        raise ValueError("the answer is not a folder listing")
    return [entry["name"] for entry in entries]


def check_remote(pattern: str, api: str = GITHUB_API) -> list[str]:
    """``listing_problems`` of the repository ``pattern`` opens, its listing fetched; a listing that cannot
    be had is a problem too (the check was asked for and could not be made)."""
    target = github_target(pattern)
    if target is None:
        return []
    try:
        names = fetch_listing(target, api)
    except (OSError, ValueError) as error:
        return [
            f"[tool.course] colab_url: the top folder of {target.name} (branch {target.branch}) could not be "
            f"listed ({error}); a private or missing repository cannot be checked, and students could not open it"
        ]
    return listing_problems(target, names)
