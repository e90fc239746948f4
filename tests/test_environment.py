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


def test_the_gradescope_lock_records_the_versions_these_tests_run_with():
    """Gradescope's image installs requirements.lock; in CI this proves those are the tested versions."""
    from assignments import lockfile

    assert lockfile.drift() == [], (
        f"{lockfile.LOCK} differs from this environment; run `make lock` where the tests pass and commit it"
    )
