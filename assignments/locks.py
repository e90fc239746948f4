"""Lock files: the exact versions every install of the course gets, one file per supported Python.

``pyproject.toml`` states ranges (``transformers>=5.13``), so an install that resolves them takes whatever
is newest that day: a release upstream would change what ``make test`` runs, what a Gradescope image
installs and what the grader image holds, and no test would have seen those versions. So every install
goes through a lock instead: ``locks/python3.X.txt`` pins the project's dependencies, everything they pull
in, the build backend and the installers (pip, and uv for the large installs), for that Python. ``make
venv`` installs exactly the lock of its Python, as does the Gradescope bundle's ``setup.sh``; moving to newer releases is an explicit
``course lock`` (``make lock``), whose result CI tests like any other change.

How a lock is made: pip resolves the requirements for the target interpreter itself (``pip --python``
with ``--dry-run --report``), so environment markers are evaluated for that Python, against the public
index alone (a machine's own wheel folders and mirrors could name versions a Gradescope image cannot
find). torch is the exception: the lock pins the version installed here (the CPU build), and resolves
that build's own requirements in its place, so no lock pulls the CUDA build's libraries.
"""

from __future__ import annotations

import importlib.metadata as metadata
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from assignments.course import REPO
from assignments.settings import Settings, read_toml

LOCK_DIR = "locks"
# What installs the lock, pinned by it: pip (make venv, the venv's own) and uv, which setup.sh and the Colab
# rehearsal venvs install with (the 3.10 lock with PyPI's torch in 26 s where pip took 2.2 min).
INSTALLERS = ("pip", "uv")
HEADER = (
    "# The exact versions an install of the course gets on Python {python}: `make venv`, the Gradescope\n"
    "# bundle's setup.sh. Written by `course lock` (make lock); edit the requirements in pyproject.toml,\n"
    "# never this file. A test checks that the environment it runs in is exactly this lock.\n"
)
# Requirements only the CUDA builds of torch declare; the lock pins the CPU build, which has none.
CUDA_ONLY = re.compile(r"^(nvidia-|triton|cuda-)")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pyproject(root: Path) -> dict:
    return read_toml(Path(root) / "pyproject.toml")


def project_requirements(root: Path = REPO) -> list[str]:
    """The project's declared dependencies (what the Gradescope bundle and ``pip install .`` ask for)."""
    return list(_pyproject(root)["project"]["dependencies"])


def supported_pythons(root: Path = REPO) -> list[str]:
    """The Python versions (``3.X``) the course installs on, each with a lock: ``[tool.course] pythons``
    (none where the course names none: a course made for a test, whose bundle ships this checkout's locks)."""
    return list(Settings.read(root).pythons)


def lock_path(python: str | None = None, root: Path = REPO) -> Path:
    """``locks/python3.X.txt`` for ``python`` (default: the running interpreter's version)."""
    python = python or "{}.{}".format(*sys.version_info[:2])
    return Path(root) / LOCK_DIR / f"python{python}.txt"


def lock_roots(root: Path = REPO) -> list[str]:
    """What a lock is resolved from: the dependencies, the build backend (the editable install builds with
    it, without build isolation) and the installers, pip and uv, so they are pinned too."""
    return project_requirements(root) + list(_pyproject(root)["build-system"]["requires"]) + list(INSTALLERS)


def installed_closure(requirements: list[str]) -> dict[str, str]:
    """canonical name -> installed version (no local label) of ``requirements`` and all they require.

    A package reached once plain and once with extras (``jsonschema`` and ``jsonschema[format-nongpl]``)
    contributes the extras' requirements too: visits are keyed by name and extra."""
    from packaging.requirements import Requirement

    found: dict[str, str] = {}
    visited: set[tuple[str, str]] = set()
    pending = [Requirement(text) for text in requirements]
    while pending:
        requirement = pending.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = canonical(requirement.name)
        extras = [""] + sorted(requirement.extras)
        todo = [extra for extra in extras if (name, extra) not in visited]
        if not todo:
            continue
        visited.update((name, extra) for extra in todo)
        try:
            dist = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            raise LookupError(
                f"{requirement.name} is required but not installed here; install the project first"
            ) from None
        found[name] = dist.version.split("+")[0]
        for text in dist.requires or []:
            child = Requirement(text)
            if child.marker is None or any(child.marker.evaluate({"extra": extra}) for extra in todo):
                child.marker = None
                pending.append(child)
    return found


def render(pins: dict[str, str], python: str) -> str:
    return HEADER.format(python=python) + "".join(f"{name}=={version}\n" for name, version in sorted(pins.items()))


def read(path: Path) -> dict[str, str]:
    pins = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[canonical(name)] = version.strip()
    return pins


def installed_torch() -> tuple[str, list[str]]:
    """The installed torch's version (no local label) and the requirements of that build, extras and the
    CUDA builds' libraries left out."""
    from packaging.requirements import Requirement

    try:
        dist = metadata.distribution("torch")
    except metadata.PackageNotFoundError:
        raise LookupError("torch is not installed here: `make venv` first (the lock pins its version)") from None
    requirements = []
    for text in dist.requires or []:
        requirement = Requirement(text)
        if "extra" in str(requirement.marker or "") or CUDA_ONLY.match(canonical(requirement.name)):
            continue
        requirements.append(text)
    return dist.version.split("+")[0], requirements


def find_interpreter(python: str) -> Path | None:
    """An interpreter of version ``3.X``: pyenv's newest patch release of it, else ``python3.X`` on PATH."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = sorted(
        pyenv.glob(f"{python}.*/bin/python"),
        key=lambda path: [int(part) for part in re.findall(r"\d+", path.parent.parent.name)],
    )
    if candidates:
        return candidates[-1]
    import shutil

    found = shutil.which(f"python{python}")
    if found and subprocess.run([found, "-c", ""], capture_output=True).returncode == 0:
        return Path(found)
    return None


def _public_index_env() -> dict[str, str]:
    """pip's environment for resolving against the public index alone: no config files (local mirrors,
    machine-wide constraints) and no local wheel folders."""
    env = {key: value for key, value in os.environ.items() if key not in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL")}
    env["PIP_CONFIG_FILE"] = os.devnull
    return env


def resolve(interpreter: Path, requirements: list[str], constraints: Path | None = None) -> dict[str, str]:
    """canonical name -> version that pip chooses for ``requirements`` on ``interpreter`` (nothing installed),
    within ``constraints`` (a lock) where given."""
    with tempfile.TemporaryDirectory() as folder:
        wanted, report = Path(folder) / "requirements.txt", Path(folder) / "report.json"
        wanted.write_text("\n".join(requirements) + "\n", encoding="utf-8")
        command = [sys.executable, "-m", "pip", "--python", str(interpreter), "install", "--dry-run"]
        command += ["--ignore-installed", "--quiet", "--report", str(report), "-r", str(wanted)]
        command += ["-c", str(constraints)] if constraints else []
        done = subprocess.run(command, env=_public_index_env(), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"pip could not resolve the requirements on {interpreter}:\n{done.stderr[-3000:]}")
        chosen = json.loads(report.read_text(encoding="utf-8"))["install"]
    return {canonical(item["metadata"]["name"]): item["metadata"]["version"] for item in chosen}


def lock_for(python: str, root: Path = REPO) -> dict[str, str]:
    """The pins for ``python`` (``3.X``): the roots resolved there, torch at the version installed here."""
    from packaging.requirements import Requirement

    interpreter = find_interpreter(python)
    if interpreter is None:
        raise LookupError(f"no Python {python} here to resolve its lock: `pyenv install {python}`")
    torch_version, torch_requirements = installed_torch()
    roots = [text for text in lock_roots(root) if canonical(Requirement(text).name) != "torch"]
    pins = resolve(interpreter, roots + torch_requirements)
    pins["torch"] = torch_version
    return pins


def write(root: Path = REPO, pythons: list[str] | None = None) -> list[tuple[Path, list[str]]]:
    """Write the lock of each Python in ``pythons`` (default: every supported one, and then the docs tools'
    lock, resolved against them); returns each path with what moved since the lock it replaces."""
    written = []
    for python in pythons or supported_pythons(root):
        path = lock_path(python, root)
        before = read(path) if path.is_file() else {}
        pins = lock_for(python, root)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(pins, python), encoding="utf-8")
        written.append((path, compare(before, pins)))
    if pythons is None and docs_requirements(root):  # every Python's lock moved: the docs tools' may have to
        written.append(write_docs(root))
    return written


# --- the documentation tools' lock -----------------------------------------------------------------------
#
# Sphinx and MyST-Parser build the staff documentation (`make docs`) and nothing else: they are an optional
# extra (``[project.optional-dependencies] docs``), pinned in a lock of their own that holds only what the
# Python's lock does not, so the Gradescope zip and the grader image, which install ``python3.X.txt``
# alone, never carry them. ``make docs`` installs it with that Python's lock as constraints: every package
# both need stays at the lock's version.
DOCS_LOCK = "docs.txt"
DOCS_HEADER = (
    "# The documentation tools' exact versions (`make docs`): only what locks/python3.X.txt does not pin,\n"
    "# installed with that lock as constraints. Never in the Gradescope zip or the grader image. Written by\n"
    "# `course lock --docs` (and `make lock`) from [project.optional-dependencies] docs; never edit by hand.\n"
)
DOCS_PYTHONS = "# pythons:"  # the header line naming the Pythons the pins resolve on


def docs_requirements(root: Path = REPO) -> list[str]:
    """The documentation tools the project asks for (``[project.optional-dependencies] docs``)."""
    return list(_pyproject(root)["project"].get("optional-dependencies", {}).get("docs", []))


def docs_lock_path(root: Path = REPO) -> Path:
    return Path(root) / LOCK_DIR / DOCS_LOCK


def docs_lock(root: Path = REPO) -> tuple[dict[str, str], list[str]]:
    """The docs tools' pins and the supported Pythons they install on. Resolved against each Python's lock
    in turn: a Python whose lock admits no release of the tools is left out (3.10: myst-parser 5 needs 3.11,
    and myst-parser 4 refuses the lock's markdown-it-py 4); once one Python has resolved, every later one
    must take the same pins, so one file serves them all."""
    wanted = docs_requirements(root)
    pins: dict[str, str] | None = None
    pythons = []
    for python in supported_pythons(root):
        interpreter = find_interpreter(python)
        if interpreter is None:
            raise LookupError(f"no Python {python} here to resolve the docs lock: `pyenv install {python}`")
        locked = lock_path(python, root)
        fixed = [f"{name}=={version}" for name, version in (pins or {}).items()]
        try:
            chosen = resolve(interpreter, wanted + fixed, constraints=locked)
        except RuntimeError:
            if pins is None:
                continue  # too old for the docs tools at the lock's versions
            raise
        own = {name: version for name, version in chosen.items() if name not in read(locked)}
        if pins is not None and own != pins:
            raise RuntimeError(f"the docs tools need other packages on Python {python}: {compare(pins, own, python)}")
        pins = own
        pythons.append(python)
    if pins is None:
        raise RuntimeError(f"the docs tools {wanted} resolve against no supported Python's lock")
    return pins, pythons


def render_docs(pins: dict[str, str], pythons: list[str]) -> str:
    lines = "".join(f"{name}=={version}\n" for name, version in sorted(pins.items()))
    return DOCS_HEADER + f"{DOCS_PYTHONS} {' '.join(pythons)}\n" + lines


def write_docs(root: Path = REPO) -> tuple[Path, list[str]]:
    """Write ``locks/docs.txt``; returns its path and what moved."""
    path = docs_lock_path(root)
    before = read(path) if path.is_file() else {}
    pins, pythons = docs_lock(root)
    path.write_text(render_docs(pins, pythons), encoding="utf-8")
    return path, compare(before, pins)


def compare(locked: dict[str, str], other: dict[str, str], other_name: str = "now") -> list[str]:
    """One line per package whose version differs between ``locked`` and ``other``."""
    return [
        f"{name}: locked {locked.get(name, 'not at all')}, {other_name} {other.get(name, 'not at all')}"
        for name in sorted(set(locked) | set(other))
        if locked.get(name) != other.get(name)
    ]


def drift(root: Path = REPO) -> list[str]:
    """How this environment differs from its Python's lock (empty: it is exactly the lock)."""
    path = lock_path(root=root)
    if not path.is_file():
        return [f"no {path.relative_to(root)} for this Python; supported: {', '.join(supported_pythons(root))}"]
    return compare(read(path), installed_closure(lock_roots(root)), "installed")
