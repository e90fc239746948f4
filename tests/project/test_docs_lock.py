"""locks/docs.txt, the docs tools' lock (`make docs`), stays beside the Pythons' locks and out of every
platform install: it pins only what no Python's lock pins (installed with that lock as constraints, it can
never move a package the course runs), every docs requirement at a version the requirement allows, and it
names the supported Pythons it was resolved on. The Gradescope zip and the grader image read
``locks/python3.X.txt`` by name (``gradescope/bundle.py``, ``image/Containerfile``), never the docs lock."""

from __future__ import annotations

from packaging.requirements import Requirement

from assignments import locks as lockfile
from assignments.course import REPO
from assignments.platforms.gradescope import bundle


def docs_pythons() -> list[str]:
    """The Pythons ``locks/docs.txt`` was resolved on (its header, which `make docs` also reads)."""
    for line in lockfile.docs_lock_path().read_text(encoding="utf-8").splitlines():
        if line.startswith(lockfile.DOCS_PYTHONS):
            return line[len(lockfile.DOCS_PYTHONS) :].split()
    return []


def test_the_docs_lock_pins_only_what_no_python_lock_pins():
    docs = lockfile.read(lockfile.docs_lock_path())
    for python in lockfile.supported_pythons():
        shared = set(docs) & set(lockfile.read(lockfile.lock_path(python)))
        assert not shared, f"locks/docs.txt pins {sorted(shared)}, which python{python}.txt pins too"


def test_the_docs_lock_meets_the_docs_requirements():
    docs = lockfile.read(lockfile.docs_lock_path())
    wanted = lockfile.docs_requirements()
    assert wanted, "pyproject.toml declares no docs extra"
    for text in wanted:
        requirement = Requirement(text)
        name = lockfile.canonical(requirement.name)
        assert name in docs, f"locks/docs.txt does not pin {name}: run `course lock --docs`"
        assert requirement.specifier.contains(docs[name]), f"locks/docs.txt pins {name}=={docs[name]}, outside {text}"
    pythons = docs_pythons()
    assert pythons and set(pythons) <= set(lockfile.supported_pythons()), f"docs lock's pythons: {pythons}"


def test_no_platform_install_reads_the_docs_lock():
    locks = bundle._locks(REPO)
    assert lockfile.docs_lock_path() not in locks.values(), "the Gradescope zip would ship the docs lock"
    assert "docs.txt" not in (REPO / "image" / "Containerfile").read_text(encoding="utf-8")
    docs = lockfile.read(lockfile.docs_lock_path())
    required = {lockfile.canonical(Requirement(text).name) for text in lockfile.project_requirements()}
    assert not required & set(docs), f"docs tools became dependencies of the course: {sorted(required & set(docs))}"
