"""Under nbgrader autograde a failing visible check reports instead of zeroing the hidden tests' credit."""

import contextlib
import io
from pathlib import Path

from assignments.grading.nbgrader_hooks import informative_visible_checks

CELL = '''x = 1
assert x == 2, "x should be 2"
### BEGIN HIDDEN TESTS
points = 3.0
### END HIDDEN TESTS
'''


def test_a_failing_visible_check_no_longer_stops_the_hidden_tests():
    namespace, printed = {}, io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(informative_visible_checks(CELL), "<cell>", "exec"), namespace)
    assert namespace["points"] == 3.0
    assert "visible check failed (AssertionError: x should be 2)" in printed.getvalue()


def test_visible_code_still_defines_names_for_the_hidden_part():
    namespace = {}
    exec(compile(informative_visible_checks("y = 41\n### BEGIN HIDDEN TESTS\nz = y + 1\n"), "<cell>", "exec"),
         namespace)
    assert namespace["z"] == 42


def test_cells_without_hidden_tests_are_left_alone():
    assert informative_visible_checks("print('hi')\n") == "print('hi')\n"


def test_the_course_config_puts_it_in_the_autograde_pipeline():
    config = (Path(__file__).resolve().parent.parent / "nbgrader_config.py").read_text()
    assert "c.Autograde.autograde_preprocessors = [\n    InformativeVisibleChecks, Execute," in config
