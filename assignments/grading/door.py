"""Kept where source notebooks' hidden-test regions (and every nbgrader gradebook made from them) import
``hidden_tests``; the code is in ``doors/nbgrader/hidden_region.py``."""

from assignments.grading.doors.nbgrader.hidden_region import hidden_tests

__all__ = ["hidden_tests"]
