"""Under nbgrader autograde a failing visible check reports instead of zeroing the hidden tests' credit."""

import contextlib
import io
import re
from pathlib import Path

from assignments.grading.doors.nbgrader.preprocessors import informative_visible_checks

CELL = """x = 1
assert x == 2, "x should be 2"
### BEGIN HIDDEN TESTS
points = 3.0
### END HIDDEN TESTS
"""


def test_a_failing_visible_check_no_longer_stops_the_hidden_tests():
    namespace, printed = {}, io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(informative_visible_checks(CELL), "<cell>", "exec"), namespace)
    assert namespace["points"] == 3.0
    assert "visible check failed (AssertionError: x should be 2)" in printed.getvalue()


def test_visible_code_still_defines_names_for_the_hidden_part():
    namespace = {}
    exec(
        compile(informative_visible_checks("y = 41\n### BEGIN HIDDEN TESTS\nz = y + 1\n"), "<cell>", "exec"), namespace
    )
    assert namespace["z"] == 42


def test_cells_without_hidden_tests_are_left_alone():
    assert informative_visible_checks("print('hi')\n") == "print('hi')\n"


def test_the_course_config_puts_it_in_the_autograde_pipeline():
    config = (Path(__file__).resolve().parents[4] / "nbgrader_config.py").read_text()
    pipeline = re.search(r"c\.Autograde\.autograde_preprocessors = \[([^\]]*)\]", config)
    assert pipeline, "nbgrader_config.py sets no autograde pipeline"
    steps = [step.strip() for step in pipeline.group(1).split(",") if step.strip()]
    assert steps[:3] == ["InformativeVisibleChecks", "Execute", "HonestPoints"], steps


# --- HonestPoints: nbgrader's own grade reading sees only what the hidden-test call published ----------

import nbformat  # noqa: E402
from nbgrader.utils import determine_grade  # noqa: E402

from assignments.grading.doors.nbgrader.preprocessors import POINTS_MIME, HonestPoints  # noqa: E402

TEST_SOURCE = (
    "assert True\n### BEGIN HIDDEN TESTS\nfrom assignments.grading.door import hidden_tests\n"
    "hidden_tests('transformers', 'attention_tests', globals())\n### END HIDDEN TESTS\n"
)


def hidden_test_cell(*outputs):
    cell = nbformat.v4.new_code_cell(TEST_SOURCE, execution_count=3)
    cell.metadata["nbgrader"] = {
        "grade": True,
        "solution": False,
        "locked": True,
        "points": 4,
        "grade_id": "attention_tests",
        "schema_version": 3,
    }
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    return cell


def published(points, grade_id="attention_tests"):
    return {
        "output_type": "display_data",
        "metadata": {},
        "data": {POINTS_MIME: {"grade_id": grade_id, "points": points, "max_points": 4.0}},
    }


def result(text):
    return {"output_type": "execute_result", "execution_count": 3, "metadata": {}, "data": {"text/plain": text}}


def graded(cell):
    cell, _ = HonestPoints().preprocess_cell(cell, {}, 0)
    return determine_grade(cell)[0], cell


def test_a_formatter_that_prints_checked_gets_the_published_points():
    points, cell = graded(hidden_test_cell(published(1.5), result("'checked'")))
    assert points == 1.5, f"nbgrader read {points}; expected the 1.5 points the hidden tests published"
    assert [o.output_type for o in cell.outputs].count("execute_result") == 1


def test_no_displayed_result_still_gets_the_published_points():
    # ast_node_interactivity = "none": the call's value is never displayed, its published points are.
    assert graded(hidden_test_cell(published(2.0)))[0] == 2.0


def test_no_published_points_scores_zero_with_a_visible_note():
    points, cell = graded(hidden_test_cell(result("4.0")))
    assert points == 0, f"a cell without published points scored {points}; expected 0"
    assert "published no points" in "".join(o.get("text", "") for o in cell.outputs)


def test_forged_extra_points_or_another_questions_points_are_not_trusted():
    assert graded(hidden_test_cell(published(1.0), published(4.0)))[0] == 0, "two publications must score 0"
    assert graded(hidden_test_cell(published(4.0, grade_id="mha_tests")))[0] == 0, "another question's points"
    assert graded(hidden_test_cell(published(9.0)))[0] == 0, "points above the maximum must score 0"
    assert graded(hidden_test_cell(published(float("nan"))))[0] == 0, "NaN points must score 0"


def test_a_cell_that_raised_still_scores_zero():
    error = {"output_type": "error", "ename": "RuntimeError", "evalue": "x", "traceback": []}
    assert graded(hidden_test_cell(published(4.0), error))[0] == 0


def test_kernels_started_by_nbgrader_see_no_accelerator_and_stay_offline():
    # nbgrader loads nbgrader_config.py in its own process and its kernels inherit that environment; the
    # config is loaded here the way nbgrader loads it (traitlets), in a fresh interpreter with a GPU visible.
    import json
    import os
    import subprocess
    import sys

    from assignments.course import REPO
    from assignments.grading.environment import kernel_environment_for_nbgrader

    probe = (
        "import json, os\n"
        "from traitlets.config.loader import PyFileConfigLoader\n"
        "PyFileConfigLoader('nbgrader_config.py', path='.').load_config()\n"
        "print(json.dumps(dict(os.environ)))\n"
    )
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="0", HF_HUB_OFFLINE="0")
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    expected = kernel_environment_for_nbgrader()
    assert {key: seen.get(key) for key in expected} == expected
    assert seen["CUDA_VISIBLE_DEVICES"] == "" and "NBGRADER_EXECUTION" not in expected


def test_a_hidden_test_region_resolves_its_name_in_the_course_the_door_names(monkeypatch, toy_assignment):
    # The nbgrader door names the course folder in its kernels' environment; without it (nbgrader run by
    # hand on the repository's course, `course release`'s validate) the name is the repository's.
    from assignments.course import default
    from assignments.grading.doors.nbgrader.hidden_region import COURSE_VARIABLE, kernel_assignment

    monkeypatch.delenv(COURSE_VARIABLE, raising=False)
    assert kernel_assignment("transformers") == default().assignment("transformers")
    monkeypatch.setenv(COURSE_VARIABLE, str(toy_assignment.folder))
    assert kernel_assignment("toy") == toy_assignment.assignment
