"""Source-notebook hygiene (issue item 4c): every real source notebook is clean, and each check catches
what it is for, with a message naming the file, the cell and the problem."""

from __future__ import annotations

import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from assignments import notebooks
from assignments.course import REPO, default
from assignments.release import hygiene
from tests.helpers import nbgrader_meta as meta

SOURCE_DIR = default().source_dir

SETUP = """import importlib.util, os, subprocess, sys
_missing = [pkg for pkg in ("tqdm",) if importlib.util.find_spec(pkg) is None]
if _missing:
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", *_missing])
print("GPU:", "none (CPU only)")"""


def clean_cells():
    return [
        new_markdown_cell("# Toy\n\n[Open in Colab](https://example.org)", metadata=meta("colab_badge", locked=True)),
        new_code_cell(SETUP, metadata=meta("setup", locked=True)),
        new_markdown_cell("## Task", metadata=meta("task_prose", locked=True)),
        new_code_cell(
            "def f(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION",
            metadata=meta("f", solution=True),
        ),
        new_code_cell(
            "assert f(2) == 4\n### BEGIN HIDDEN TESTS\nassert f(3) == 6\n### END HIDDEN TESTS",
            metadata=meta("f_tests", grade=True, locked=True, points=2),
        ),
        new_markdown_cell(
            "Because.\n\n=== BEGIN MARK SCHEME ===\nOne point.\n=== END MARK SCHEME ===",
            metadata=meta("why_written", grade=True, solution=True, points=1),
        ),
    ]


def problems_of(tmp_path, cells=None, nb=None, name="toy.ipynb"):
    nb = nb or new_notebook(cells=cells if cells is not None else clean_cells())
    path = tmp_path / name
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    return [str(p) for p in hygiene.check_notebook(path, f"source/toy/{name}")]


# --- the real notebooks --------------------------------------------------------------------------------


@pytest.mark.parametrize("assignment", default().order)
def test_source_notebook_is_clean(assignment):
    path = default().assignment(assignment).source_path
    problems = hygiene.check_notebook(path, str(path.relative_to(REPO)))
    assert not problems, "\n".join(str(p) for p in problems)


# --- each check ----------------------------------------------------------------------------------------


def test_clean_toy_has_no_problems(tmp_path):
    assert problems_of(tmp_path) == []


def test_duplicate_grade_id(tmp_path):
    cells = clean_cells()
    cells[4].metadata["nbgrader"]["grade_id"] = "f"
    assert problems_of(tmp_path, cells) == [
        "source/toy/toy.ipynb: cell 4 (f): duplicate grade_id 'f' (first used by cell 3)"
    ]


def test_graded_cell_without_points(tmp_path):
    cells = clean_cells()
    del cells[4].metadata["nbgrader"]["points"]
    assert problems_of(tmp_path, cells) == ["source/toy/toy.ipynb: cell 4 (f_tests): graded cell has no points"]


def test_graded_cell_with_zero_points(tmp_path):
    cells = clean_cells()
    cells[5].metadata["nbgrader"]["points"] = 0
    assert "cell 5 (why_written): graded cell has points 0" in "\n".join(problems_of(tmp_path, cells))


def test_locked_answer_cell(tmp_path):
    cells = clean_cells()
    cells[3].metadata["nbgrader"]["locked"] = True
    assert problems_of(tmp_path, cells) == [
        "source/toy/toy.ipynb: cell 3 (f): answer cell (solution: true) is locked; students could not edit it"
    ]


def test_tracked_cell_without_grade_id(tmp_path):
    cells = clean_cells()
    del cells[2].metadata["nbgrader"]["grade_id"]
    assert problems_of(tmp_path, cells) == ["source/toy/toy.ipynb: cell 2 (no grade_id): nbgrader cell has no grade_id"]


def test_old_nbgrader_schema(tmp_path):
    cells = clean_cells()
    cells[2].metadata["nbgrader"]["schema_version"] = 1
    found = problems_of(tmp_path, cells)
    assert len(found) == 1 and "cell 2 (task_prose): nbgrader metadata schema_version is 1, expected 3" in found[0]


@pytest.mark.parametrize(
    "markers, expected",
    [
        (notebooks.SOLUTION, "solution markers: 'BEGIN SOLUTION' on line 2 has no matching 'END SOLUTION'"),
        (
            notebooks.HIDDEN_TESTS,
            "hidden tests markers: 'BEGIN HIDDEN TESTS' on line 2 has no matching 'END HIDDEN TESTS'",
        ),
    ],
)
def test_unterminated_region(tmp_path, markers, expected):
    cells = clean_cells()
    index = 3 if markers == notebooks.SOLUTION else 4
    cells[index].source = "\n".join(line for line in cells[index].source.split("\n") if markers[1] not in line)
    found = problems_of(tmp_path, cells)
    gid = cells[index].metadata["nbgrader"]["grade_id"]
    assert found == [f"source/toy/toy.ipynb: cell {index} ({gid}): {expected}"]


def test_unterminated_mark_scheme(tmp_path):
    cells = clean_cells()
    cells[5].source = cells[5].source.replace("=== END MARK SCHEME ===", "")
    assert problems_of(tmp_path, cells) == [
        "source/toy/toy.ipynb: cell 5 (why_written): mark scheme markers: 'BEGIN MARK SCHEME' on line 3 has "
        "no matching 'END MARK SCHEME'"
    ]


def test_nested_and_stray_markers(tmp_path):
    cells = clean_cells()
    cells[3].source = "### BEGIN SOLUTION\n### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n### END SOLUTION"
    text = "\n".join(problems_of(tmp_path, cells))
    assert "cell 3 (f): solution markers: 'BEGIN SOLUTION' on line 2 opens a region inside" in text
    assert "cell 3 (f): solution markers: 'END SOLUTION' on line 5 has no matching 'BEGIN SOLUTION'" in text


def test_markers_in_cells_nbgrader_would_not_strip(tmp_path):
    cells = clean_cells()
    cells[2].source = "## Task\n### BEGIN SOLUTION\nsecret\n### END SOLUTION"
    cells.append(
        new_code_cell(
            "x = 1\n### BEGIN HIDDEN TESTS\nassert x\n### END HIDDEN TESTS", metadata=meta("helper", locked=True)
        )
    )
    text = "\n".join(problems_of(tmp_path, cells))
    assert "cell 2 (task_prose): solution markers in a cell that is not an answer cell" in text
    assert "cell 6 (helper): hidden-test markers in a cell that is not an autograded test cell" in text


def test_answer_cell_without_solution_region_and_written_answer_without_mark_scheme(tmp_path):
    cells = clean_cells()
    cells[3].source = "def f(x):\n    return 2 * x"
    cells[5].source = "Because."
    text = "\n".join(problems_of(tmp_path, cells))
    assert "cell 3 (f): answer cell has no '### BEGIN SOLUTION' region" in text
    assert "cell 5 (why_written): written answer has no '=== BEGIN MARK SCHEME ===' region" in text


def test_stored_outputs_and_execution_counts(tmp_path):
    cells = clean_cells()
    cells[1].execution_count = 3
    cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="GPU: none\n")]
    assert problems_of(tmp_path, cells) == [
        "source/toy/toy.ipynb: cell 1 (setup): 1 stored output(s); run Restart & Clear Output before committing",
        "source/toy/toy.ipynb: cell 1 (setup): stored execution count 3; clear outputs",
    ]


def test_magics_and_course_imports(tmp_path):
    cells = clean_cells()
    cells[2] = new_code_cell(
        "!pip install torch\nfrom assignments.grading.door import hidden_tests", metadata=meta("helper", locked=True)
    )
    text = "\n".join(problems_of(tmp_path, cells))
    assert "cell 2 (helper): line 1: IPython magic or shell escape '!pip install torch'" in text
    # an import of the course package is fine only inside a hidden-test region (cell 4 has one)
    cells[2].source = "import autograder.transformers"
    assert problems_of(tmp_path, cells) == [
        "source/toy/toy.ipynb: cell 2 (helper): imports 'autograder' outside a hidden-test region (line 1); "
        "students do not have it"
    ]


def test_layout_colab_cell_first_and_setup_first_code(tmp_path):
    cells = clean_cells()
    cells[0], cells[2] = cells[2], cells[0]
    cells[1].metadata["nbgrader"]["grade_id"] = "imports"
    text = "\n".join(problems_of(tmp_path, cells))
    assert "cell 0 (task_prose): the first cell must be the markdown cell with grade_id 'colab_badge'" in text
    assert "cell 1 (imports): the first code cell must be the setup cell (grade_id 'setup')" in text


def test_unparseable_json_names_the_cell(tmp_path):
    text = nbformat.writes(new_notebook(cells=clean_cells()))
    broken = text.replace('"source": [\n    "def f(x):', '"source": [\n    "def f(x):" oops', 1)
    assert broken != text
    path = tmp_path / "toy.ipynb"
    path.write_text(broken, encoding="utf-8")
    found = [str(p) for p in hygiene.check_notebook(path, "source/toy/toy.ipynb")]
    assert len(found) == 1
    assert found[0].startswith("source/toy/toy.ipynb: cell 3 (line ")
    assert "unparseable JSON: Expecting" in found[0]


def test_nbformat_schema_errors_name_the_cell(tmp_path):
    data = json.loads(nbformat.writes(new_notebook(cells=clean_cells())))
    data["cells"][2]["cell_type"] = "markdown"
    data["cells"][3]["source"] = 42
    path = tmp_path / "toy.ipynb"
    path.write_text(json.dumps(data), encoding="utf-8")
    found = [str(p) for p in hygiene.check_notebook(path, "source/toy/toy.ipynb")]
    assert any(p.startswith("source/toy/toy.ipynb: cell 3 (f): nbformat validation:") for p in found), found


def test_old_nbformat_is_rejected(tmp_path):
    path = tmp_path / "toy.ipynb"
    path.write_text(json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}))
    assert [str(p) for p in hygiene.check_notebook(path, "source/toy/toy.ipynb")] == [
        "source/toy/toy.ipynb: notebook: nbformat 3; source notebooks must be nbformat 4 (open and save it in a "
        "current Jupyter)"
    ]
