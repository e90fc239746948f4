"""What students receive (issue items 5 and 6): Colab link from the one configured pattern, a setup cell
that installs only what is missing and reports the GPU, release notebooks that import nothing from this
repository, and deterministic LMS bundles."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import zipfile

import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from assignments import notebooks
from assignments.course import REPO, default
from assignments.release import lms

RELEASE_DIR = default().release_dir
SOLUTIONS_DIR = default().solutions_dir
SOURCE_DIR = default().source_dir


def release_path(assignment: str):
    """The committed release notebook (tests/course/test_catalog_complete.py checks that it exists)."""
    return RELEASE_DIR / assignment / f"{assignment}.ipynb"


# --- the configured Colab link -------------------------------------------------------------------------


def test_colab_pattern_is_configured_in_one_place():
    pattern = lms.colab_pattern()
    assert "{assignment}" in pattern and "{notebook}" in pattern
    for path in sorted((REPO / "assignments").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "colab.research.google.com/github" not in text, (
            f"{path.relative_to(REPO)} spells out a Colab URL; use [tool.course] colab_url in pyproject.toml"
        )


@pytest.mark.parametrize("assignment", default().order)
def test_release_links_to_the_configured_colab_url(assignment):
    path = release_path(assignment)
    first = notebooks.read(path).cells[0]
    assert notebooks.grade_id(first) == "colab_badge" and first.cell_type == "markdown"
    assert lms.colab_links(first.source) == [lms.colab_url(assignment, path.name)]


@pytest.mark.parametrize("assignment", default().order)
def test_source_link_is_in_sync(assignment):
    path = default().assignment(assignment).source_path
    links = lms.colab_links(notebooks.read(path).cells[0].source)
    assert links == [lms.colab_url(assignment, path.name)], (
        f"{path.relative_to(REPO)}: Colab link {links}; `course release` rewrites it from [tool.course] colab_url"
    )


# --- self-contained release notebooks ------------------------------------------------------------------


@pytest.mark.parametrize("assignment", default().order)
def test_release_is_self_contained(assignment):
    """No import of assignments/autograder or any module only this repo has; imports are stdlib, preinstalled
    on Colab or installed by the setup cell; the setup cell checks find_spec and reports the GPU."""
    path = release_path(assignment)
    problems = lms.self_contained_problems(notebooks.read(path), assignment, path.name)
    assert not problems, "\n".join(problems)


SETUP_PROBE = textwrap.dedent("""
    import importlib.util, json, subprocess, sys, os
    hidden = sys.argv[1]
    real_find_spec = importlib.util.find_spec
    importlib.util.find_spec = lambda name, *a, **k: None if name == hidden else real_find_spec(name, *a, **k)
    class Installing(Exception):
        pass
    def record(command, *args, **kwargs):
        print("PIP:" + json.dumps([str(part) for part in command]))
        raise Installing()
    subprocess.check_call = subprocess.run = subprocess.call = subprocess.check_output = record
    os.system = lambda command: record([command])
    try:
        exec(compile(sys.stdin.read(), "setup", "exec"), {"__name__": "__main__"})
        print("NO-INSTALL")
    except Installing:
        pass
""")


@pytest.mark.parametrize("assignment", default().order)
def test_setup_cell_installs_only_what_is_missing(assignment):
    """Run the real setup cell with one of its packages hidden: it must pip-install exactly that package."""
    path = release_path(assignment)
    setup = next(c for c in notebooks.read(path).cells if c.cell_type == "code")
    packages = lms.setup_packages(setup.source)
    assert packages, "the setup cell lists no packages"
    hidden = packages[-1]
    done = subprocess.run(
        [sys.executable, "-c", SETUP_PROBE, hidden],
        input=setup.source,
        text=True,
        capture_output=True,
        timeout=120,
        cwd=path.parent,
    )
    calls = [json.loads(line[4:]) for line in done.stdout.splitlines() if line.startswith("PIP:")]
    assert len(calls) == 1, f"expected one pip call, got {calls}; stderr:\n{done.stderr[-2000:]}"
    command = calls[0]
    assert "pip" in command and "install" in command, command
    named = [part for part in command[command.index("install") + 1 :] if not part.startswith("-")]
    assert named == [hidden], f"the setup cell installs {named}; only {hidden!r} is missing"


@pytest.mark.parametrize("assignment", default().order)
def test_setup_cell_reports_the_gpu(assignment):
    """The executed solution notebook shows what the setup cell printed in grading mode."""
    nb = notebooks.read(SOLUTIONS_DIR / assignment / f"{assignment}.ipynb")
    setup = next(c for c in nb.cells if c.cell_type == "code")
    printed = "".join(o.get("text", "") for o in setup.outputs if o.output_type == "stream")
    assert "GPU" in printed, f"the setup cell printed {printed!r}; it should say whether a GPU is present"


# --- checks of the checks ------------------------------------------------------------------------------

GOOD_SETUP = """import importlib.util, subprocess, sys
_missing = [p for p in ("torch", "tqdm") if importlib.util.find_spec(p) is None]
if _missing:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", *_missing])
import torch
print("GPU:", torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none")"""


def small_release(setup=GOOD_SETUP, code="x = 1", link=None):
    url = link or lms.colab_url("toy", "toy.ipynb")
    return new_notebook(
        cells=[
            new_markdown_cell(f"# Toy\n\n{lms.badge(url)}", metadata={"nbgrader": {"grade_id": "colab_badge"}}),
            new_code_cell(setup, metadata={"nbgrader": {"grade_id": "setup"}}),
            new_code_cell(code, metadata={"nbgrader": {"grade_id": "work"}}),
        ]
    )


def test_self_contained_accepts_a_good_notebook():
    assert lms.self_contained_problems(small_release(), "toy", "toy.ipynb") == []


@pytest.mark.parametrize(
    "code, expected",
    [
        ("from assignments.grading import door", "imports 'assignments', which exists only in the course repository"),
        ("import autograder.transformers.stand_ins", "imports 'autograder', which exists only"),
        ("import nbgrader_config", "imports 'nbgrader_config', which exists only"),
        ("import sentencepiece_unknown", "imports 'sentencepiece_unknown', which Colab lacks"),
        ("import importlib\nimportlib.import_module('autograder.x')", "imports 'autograder'"),
    ],
)
def test_self_contained_flags_repo_and_unknown_imports(code, expected):
    problems = lms.self_contained_problems(small_release(code=code), "toy", "toy.ipynb")
    assert any(expected in p for p in problems), problems


@pytest.mark.parametrize(
    "setup, expected",
    [
        (GOOD_SETUP.replace("if _missing:\n    ", ""), "runs pip install unconditionally"),
        (GOOD_SETUP.replace("importlib.util.find_spec(p) is None", "True"), "does not check packages with"),
        (GOOD_SETUP.replace('print("GPU:", ', "print("), "does not print whether a GPU is present"),
    ],
)
def test_setup_cell_checks(setup, expected):
    assert any(expected in p for p in lms.check_setup_cell(setup)), lms.check_setup_cell(setup)


def test_wrong_colab_link_is_flagged():
    problems = lms.self_contained_problems(small_release(link="https://example.org/x"), "toy", "toy.ipynb")
    assert any("Colab link is ['https://example.org/x']" in p for p in problems), problems


def test_colab_link_rewriting_keeps_the_rest():
    html = (
        '# A\n\n<a href="https://old" target="_parent"><img src="https://colab.research.google.com/assets/'
        'colab-badge.svg" alt="Open In Colab"/></a>\n\nSee [the docs](https://docs).'
    )
    new = lms.with_colab_link(html, "https://new")
    assert lms.colab_links(new) == ["https://new"]
    assert new == html.replace("https://old", "https://new")
    markdown = "# A\n\n[![Open In Colab](x.svg)](https://old) and [docs](https://docs)"
    assert lms.with_colab_link(markdown, "https://new") == markdown.replace("https://old", "https://new")
    assert lms.colab_links(lms.with_colab_link("# A\n\nText.", "https://new")) == ["https://new"]


# --- LMS bundles ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("assignment", default().order)
def test_lms_bundle(assignment, tmp_path):
    path = release_path(assignment)
    bundle = lms.build_bundle(default().assignment(assignment), tmp_path / "first")
    again = lms.build_bundle(default().assignment(assignment), tmp_path / "second")
    assert bundle == tmp_path / "first" / "lms" / f"{assignment}.zip"
    assert bundle.read_bytes() == again.read_bytes(), "bundles must be byte-identical across builds"
    with zipfile.ZipFile(bundle) as archive:
        names = archive.namelist()
        assert "README.md" in names and path.name in names
        assert archive.read(path.name) == path.read_bytes()
        readme = archive.read("README.md").decode()
    assert lms.colab_url(assignment, path.name) in readme
    assert "upload" in readme.lower() and path.name in readme
    assert default().assignment(assignment).title in readme
