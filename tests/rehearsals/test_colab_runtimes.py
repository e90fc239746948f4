"""The pins files of the Colab rehearsal (tests/colab_runtimes/) and what the release notebooks tell students
about Colab's runtime versions. The files are written by tests/colab_runtimes/read_backend_info.py from
Colab's published package lists; `make rehearsal` and `make rehearsal-previous` run the notebooks on them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assignments.course import REPO, default

RUNTIMES = REPO / "tests" / "colab_runtimes"
# Whatever else a runtime holds, these decide whether the notebooks and their kernel behave as on Colab.
MUST_PIN = ("ipython", "ipykernel", "ipywidgets", "torch", "transformers", "datasets", "huggingface-hub",
            "tokenizers", "numpy", "matplotlib", "tqdm")  # fmt: skip


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path: Path) -> tuple[str, dict[str, str]]:
    """(the Python version, {distribution: version}) of a pins file in tests/colab_runtimes/."""
    text = path.read_text(encoding="utf-8")
    python = re.search(r"^# python: *(\S+)", text, re.M).group(1)
    pinned = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", text, re.M))
    return python, pinned


def runtime_version(path: Path) -> str:
    """The name Colab's runtime-version chooser gives the runtime a pins file describes."""
    return re.search(r"^# runtime: *(.+)$", path.read_text(encoding="utf-8"), re.M).group(1).strip()


@pytest.mark.parametrize("runtime", ["current", "previous"])
def test_each_pins_file_is_one_colab_runtime_read_from_colabs_own_list(runtime):
    path = RUNTIMES / f"{runtime}.txt"
    header = path.read_text(encoding="utf-8")
    assert re.search(r"^# source: googlecolab/backend-info commit [0-9a-f]{40} \(\d{4}-\d\d-\d\d\)", header, re.M), (
        f"{path.name} should name the googlecolab/backend-info commit and date its versions were read from"
    )
    expected = "Latest" if runtime == "current" else r"\d{4}\.\d\d"
    assert re.fullmatch(expected, runtime_version(path)), (
        f"{path.name} should name its runtime version as Colab's chooser does ({expected}), "
        f"not {runtime_version(path)!r}"
    )
    python, pinned = pins(path)
    assert re.fullmatch(r"3\.\d+", python), f"{path.name}: '# python:' should be a minor version, not {python!r}"
    missing = sorted(set(MUST_PIN) - {normalize(name) for name in pinned})
    assert not missing, f"{path.name} should pin Colab's version of {missing}"


def test_release_notebooks_name_the_runtime_versions_they_are_rehearsed_on():
    """A student may pick an older runtime version in Colab; the first cell says which ones were rehearsed."""
    versions = [runtime_version(RUNTIMES / f"{runtime}.txt") for runtime in ("current", "previous")]
    course = default()
    for name in course.present():
        first = course.assignment(name).release_notebook().cells[0].source
        missing = [version for version in versions if version not in first]
        assert not missing, f"release/{name}: the first cell should name Colab runtime versions {missing}"
        assert "Runtime version" in first, f"release/{name}: the first cell should say where a student picks one"
