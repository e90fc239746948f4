"""The demo's class (assignments/demo/students.py): how many buggy students it holds, each with a mistake in a
question of their own."""

from __future__ import annotations

import pytest

from assignments.course import default
from assignments.demo.students import pick_mutants


@pytest.mark.parametrize("count", [0, 1, 3])
def test_the_class_has_as_many_buggy_students_as_asked_each_on_another_question(count):
    """`course demo --buggy 0` (and the GPU benchmark's) once graded a buggy student for every question."""
    chosen = pick_mutants(default().assignment("transformers"), count)
    assert len(chosen) == count, [m.name for m in chosen]
    assert len({m.question for m in chosen}) == count
