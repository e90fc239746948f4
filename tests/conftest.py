"""Shared pytest fixtures, marks and the isolation switch (plain helpers: helpers.py).

- ``COURSE_REQUIRE_ISOLATION=1`` (.ci/run sets it): a test that needs isolation this machine cannot give
  (``helpers.isolation_unavailable``, or the ``needs_isolation`` mark) fails instead of skipping.
- ``previous_runtime``: tests that run in ``make rehearsal-previous`` (``make test`` deselects them with
  ``-m "not previous_runtime"``): the rehearsal's notebooks end to end in Colab's previous runtime's kernel,
  and grading tests too slow for ``make test`` whose behaviour ``make test`` covers more cheaply (those run
  in the grading venv, like every other grading test).
- ``nbgrader_class``: one real ``nbgrader autograde`` run shared by
  grading/doors/nbgrader/test_nbgrader_door.py and test_repair.py (both in the xdist group ``nbgrader_class``,
  so one worker grades it once).
- ``toy_assignment``: the toy assignment (fixtures/toy.py), built once per worker.
"""

from __future__ import annotations

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


def pytest_runtest_setup(item):
    for mark in item.iter_markers("needs_isolation"):
        if mark.kwargs.get("missing"):
            isolation_unavailable(mark.kwargs["missing"])


@pytest.fixture(scope="session")
def nbgrader_class(tmp_path_factory):
    """The class of fixtures/nbgrader_class.py, graded once by real nbgrader (a GradedClass)."""
    from tests.fixtures import nbgrader_class

    return nbgrader_class.grade(tmp_path_factory.mktemp("nbgrader-class"))


@pytest.fixture(scope="session")
def toy_assignment(tmp_path_factory):
    """The toy assignment in its own folder (a fixtures.toy.Toy), shared by the worker's tests: a test
    that writes a submission with ``toy.write`` gives it a name no other test uses."""
    from tests.fixtures import toy

    return toy.build(tmp_path_factory.mktemp("toy"))
