"""The two ways to install (conda environment.yml, pip pyproject.toml) declare the same packages."""

import re

import tomllib

from assignments.course import REPO


def requirement_name(spec: str) -> str:
    return re.split(r"[<>=!~\[ ;]", spec.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pip_dependencies() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return {requirement_name(spec): spec.replace(" ", "") for spec in project["dependencies"]}


def conda_pip_dependencies() -> dict[str, str]:
    """The `pip:` block of environment.yml (read without a YAML library: it is a plain list)."""
    lines = (REPO / "environment.yml").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "- pip:")
    specs = {}
    for line in lines[start + 1 :]:
        match = re.match(r"^\s{6,}- (.+)$", line)
        if not match:
            break
        spec = match.group(1).split("#")[0].strip()
        if not spec.startswith("-"):  # "-e ." installs this package itself
            specs[requirement_name(spec)] = spec.replace(" ", "")
    return specs


def test_environment_yml_and_pyproject_declare_the_same_packages():
    pip, conda = pip_dependencies(), conda_pip_dependencies()
    assert set(pip) == set(conda), (
        f"only in pyproject.toml: {sorted(set(pip) - set(conda))}; "
        f"only in environment.yml: {sorted(set(conda) - set(pip))}"
    )
    differing = {name: (pip[name], conda[name]) for name in pip if pip[name] != conda[name]}
    assert not differing, f"version constraints differ (pyproject, environment.yml): {differing}"


def test_required_packages_are_declared():
    required = {
        "torch",
        "jupyter",
        "nbgrader",
        "nbformat",
        "nbclient",
        "matplotlib",
        "transformers",
        "datasets",
        "pytest",
        "tqdm",
    }
    missing = required - set(pip_dependencies())
    assert not missing, f"pyproject.toml lacks {sorted(missing)}"


def test_nbgrader_is_the_0_9_series():
    assert re.search(r"nbgrader>=0\.9,<0\.10", pip_dependencies()["nbgrader"])


def test_this_environment_is_exactly_the_lock_of_its_python():
    """make venv installs the lock of its Python (issue 36); in CI this proves the lock is what the tests ran
    with, and under `make newest` it names every package that moved."""
    from assignments import locks as lockfile

    problems = lockfile.drift()
    assert problems == [], (
        f"this environment differs from {lockfile.lock_path().name} in {len(problems)} packages: "
        + "; ".join(problems[:20])
        + ". Install with `make venv`, or move the locks with `make lock` and commit them"
    )


def test_every_supported_python_has_a_lock_that_meets_the_requirements():
    """Each lock pins torch and every dependency, at a version pyproject.toml's specifiers allow (markers
    evaluated for that Python), plus pip and the build backend; requires-python is the oldest supported."""
    from packaging.requirements import Requirement

    from assignments import locks as lockfile

    pythons = lockfile.supported_pythons()
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == f">={min(pythons, key=lambda v: tuple(map(int, v.split('.'))))}"
    for python in pythons:
        path = lockfile.lock_path(python)
        assert path.is_file(), f"no {path.name}: run `make lock`"
        pins = lockfile.read(path)
        for text in lockfile.lock_roots():
            requirement = Requirement(text)
            if requirement.marker and not requirement.marker.evaluate({"python_version": python, "extra": ""}):
                continue
            name = lockfile.canonical(requirement.name)
            assert name in pins, f"{path.name} does not pin {name}"
            assert requirement.specifier.contains(pins[name], prereleases=True), (
                f"{path.name} pins {name}=={pins[name]}, outside pyproject.toml's {requirement.specifier}"
            )


def test_a_course_that_names_no_pythons_ships_this_checkouts_locks(tmp_path):
    """A course folder whose pyproject.toml has no ``[tool.course] pythons`` (the toy course of a test) gets
    the repository's locks in its Gradescope zip, rather than a KeyError."""
    from assignments import locks as lock
    from assignments.platforms.gradescope import bundle

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "toy"\nversion = "1.0"\n')
    assert lock.supported_pythons(tmp_path) == []
    assert bundle._locks(tmp_path) == {python: lock.lock_path(python) for python in lock.supported_pythons()}, (
        "a course without locks of its own should take this checkout's, one per supported Python"
    )
