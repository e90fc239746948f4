"""Shared pytest fixtures, marks and the isolation switch (plain helpers: helpers.py).

- ``COURSE_REQUIRE_ISOLATION=1`` (.ci/run sets it): a test that needs isolation this machine cannot give
  (``helpers.isolation_unavailable``, or the ``needs_isolation`` mark) fails instead of skipping.
- ``previous_runtime``: tests that run in ``make rehearsal-previous`` (``make test`` deselects them with
  ``-m "not previous_runtime"``): the rehearsal's notebooks end to end in Colab's previous runtime's kernel,
  and grading tests too slow for ``make test`` whose behaviour ``make test`` covers more cheaply (those run
  in the grading venv, like every other grading test).
- ``course``: tests that grade or release the real course (its three assignments), which `make test` leaves
  to `make check-course` so that it stays within ten minutes on 2 cores: the self-test of every mutant and
  variant, the release's drift, and the engine tests that still grade a real assignment (Gradescope's
  bundle, the standalone door on the reference, forged reports, key echoes). Engine tests that need a
  question use the toy course and stay in `make test` (formgrader and the term among them).
  CI runs both.
- ``nbgrader_class``: one real ``nbgrader autograde`` run of the toy assignment shared by
  grading/doors/nbgrader/test_nbgrader_door.py and test_repair.py (both in the xdist group ``nbgrader_class``,
  so one worker grades it once).
- ``toy_assignment``: the toy assignment (fixtures/toy.py), built once per worker; ``toy_with_mutant``: another
  with one mutant.
- ``gradescope_images``: the Gradescope bundle installed for real into a venv of each supported Python
  (tests/test_gradescope_images.py): several GB and minutes per Python, so only ``make gradescope-images``
  (which sets ``COURSE_GRADESCOPE_IMAGES=1``) runs it; every other run deselects it.
"""

from __future__ import annotations

import os

import pytest

from tests.helpers import isolation_unavailable


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "needs_isolation(missing): the test needs isolation the machine may "
        "lack; skipped (or failed, with COURSE_REQUIRE_ISOLATION=1) when "
        "missing names what is missing",
    )
    config.addinivalue_line("markers", "previous_runtime: runs in `make rehearsal-previous`; `make test` deselects it")
    config.addinivalue_line("markers", "course: grades or releases the real course; runs in `make check-course`")
    config.addinivalue_line("markers", "gradescope_images: runs in `make gradescope-images` only")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("COURSE_GRADESCOPE_IMAGES", "") not in ("", "0"):
        return
    left_out = [item for item in items if item.get_closest_marker("gradescope_images")]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if not item.get_closest_marker("gradescope_images")]


def pytest_runtest_setup(item):
    for mark in item.iter_markers("needs_isolation"):
        if mark.kwargs.get("missing"):
            isolation_unavailable(mark.kwargs["missing"])


@pytest.fixture(scope="session")
def nbgrader_class(toy_with_mutant, tmp_path_factory):
    """The class of fixtures/nbgrader_class.py, graded once by real nbgrader (a GradedClass)."""
    from tests.fixtures import nbgrader_class

    return nbgrader_class.grade(toy_with_mutant.assignment, tmp_path_factory.mktemp("nbgrader-class"))


@pytest.fixture(scope="session")
def toy_assignment(tmp_path_factory):
    """The toy assignment in its own folder (a fixtures.toy.Toy), shared by the worker's tests: a test
    that writes a submission with ``toy.write`` gives it a name no other test uses."""
    from tests.fixtures import toy

    return toy.build(tmp_path_factory.mktemp("toy"))


@pytest.fixture(scope="session")
def toy_with_mutant(tmp_path_factory):
    """The toy assignment with one mutant (``toy.SUBTRACTS``: a student with one known mistake), for the
    nbgrader class and the repair tests."""
    from tests.fixtures import toy

    return toy.build(tmp_path_factory.mktemp("toy-with-mutant"), mutants={"subtracts": toy.SUBTRACTS})
