"""``requirements.lock``: the exact versions the tests ran with, for the images that grade elsewhere.

``pyproject.toml`` states ranges (``torch>=2.9``), so every Gradescope image build would install whatever
is newest that day, versions no test has seen. ``course lock`` writes the versions installed in this
environment for the project's dependencies and everything they pull in (markers evaluated here), one
``name==version`` per line; the Gradescope bundle installs exactly those, and a test fails when the
environment the suite runs in (CI's) has drifted from the file, naming each difference.
Local version labels (``2.13.0+cpu``) are dropped: the pin must match on any package index.
"""

from __future__ import annotations

import importlib.metadata as metadata
import re
from pathlib import Path

from .course import REPO

LOCK = "requirements.lock"
HEADER = (
    "# Written by `course lock` (make lock) from the environment the test suite ran in: the versions the\n"
    "# Gradescope bundle installs. Regenerate after changing dependencies; a test checks it is current.\n"
)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def project_requirements(root: Path = REPO) -> list[str]:
    from .gradescope_bundle import dependencies

    return dependencies(Path(root) / "pyproject.toml")


def installed_closure(requirements: list[str]) -> dict[str, str]:
    """canonical name -> installed version (no local label) of ``requirements`` and all they require."""
    from packaging.requirements import Requirement

    found: dict[str, str] = {}
    pending = [Requirement(text) for text in requirements]
    while pending:
        requirement = pending.pop()
        name = _canonical(requirement.name)
        if name in found:
            continue
        try:
            dist = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            raise LookupError(
                f"{requirement.name} is required but not installed here; install the project first"
            ) from None
        found[name] = dist.version.split("+")[0]
        for text in dist.requires or []:
            child = Requirement(text)
            extras = requirement.extras or {""}
            if child.marker is None or any(child.marker.evaluate({"extra": extra}) for extra in extras):
                pending.append(child)
    return found


def render(pins: dict[str, str]) -> str:
    return HEADER + "".join(f"{name}=={version}\n" for name, version in sorted(pins.items()))


def read(path: Path) -> dict[str, str]:
    pins = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[_canonical(name)] = version.strip()
    return pins


def write(root: Path = REPO) -> Path:
    path = Path(root) / LOCK
    path.write_text(render(installed_closure(project_requirements(root))), encoding="utf-8")
    return path


def drift(root: Path = REPO) -> list[str]:
    """How the lock differs from this environment (empty: it records what is installed here)."""
    path = Path(root) / LOCK
    if not path.is_file():
        return [f"no {LOCK}; run `course lock` (make lock)"]
    locked, here = read(path), installed_closure(project_requirements(root))
    problems = [
        f"{name}: locked {locked.get(name, 'not at all')}, installed {version}"
        for name, version in sorted(here.items())
        if locked.get(name) != version
    ]
    problems += [f"{name}: locked {locked[name]}, no longer required" for name in sorted(set(locked) - set(here))]
    return problems
