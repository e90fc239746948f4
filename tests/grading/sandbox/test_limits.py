"""``assignments/grading/sandbox/limits.py``: what one submission may use, with wall-clock ceilings beside
its CPU budgets, readable by a batch's supervisor without importing the grader."""

import ast
import dataclasses
import inspect

import pytest

from assignments.grading.sandbox import limits
from assignments.grading.sandbox.limits import Limits


def test_the_submissions_wall_ceiling_is_its_cpu_budget_times_its_factor():
    assert Limits().total_wall_timeout == 450.0  # the figure the module's comment gives
    assert Limits(total_timeout=60, total_wall_factor=2.0).total_wall_timeout == 120.0
    assert Limits(total_timeout=60).total_wall_timeout == 90.0


def test_every_wall_ceiling_is_above_the_cpu_budget_it_goes_with():
    default = Limits()
    assert default.wall_factor > 1 and default.total_wall_factor > 1
    assert default.total_wall_timeout > default.total_timeout >= max(default.cell_timeout, default.call_timeout)


def test_the_grader_budget_leaves_room_for_the_submissions_wall_ceiling():
    from assignments.grading.doors.batch import GraderBudget  # the limit the module's comment names

    assert Limits().total_wall_timeout < GraderBudget().wall_seconds


def test_limits_are_frozen_and_travel_as_plain_values():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Limits().cell_timeout = 1
    shrunk = Limits(cell_timeout=5, memory_bytes=512 * limits.MB)
    assert Limits(**dataclasses.asdict(shrunk)) == shrunk


def test_the_module_imports_nothing_from_the_course():
    tree = ast.parse(inspect.getsource(limits))
    imported = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    assert sorted(imported) == ["__future__", "dataclasses"]
