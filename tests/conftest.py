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
  (tests/rehearsals/test_gradescope_images.py): several GB and minutes per Python, so only ``make gradescope-images``
  (which sets ``COURSE_GRADESCOPE_IMAGES=1``) runs it; every other run deselects it.
- **hang backstop**: a test still running after ``COURSE_TEST_TIMEOUT_S`` seconds (default 1800; 0 turns it
  off), its report included, gets every thread's traceback dumped and its process ended (``faulthandler``),
  and so does a session still exiting ``SHUTDOWN_TIMEOUT_S`` after its last hook: a hang (a zmq context's
  ``term()`` blocking in the garbage collector, issue #43 item 8) becomes a failure, under xdist a crashed
  worker. pytest-timeout is not in the lock files (locks/*.txt), and adding it means regenerating every
  Python's lock, so this small timer stands in for it.
"""

from __future__ import annotations

import faulthandler
import os
import sys

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


# ---------------------------------------------------------------- hang backstop (see the docstring)
TEST_TIMEOUT_S = float(os.environ.get("COURSE_TEST_TIMEOUT_S", "1800") or 0)
SHUTDOWN_TIMEOUT_S = 120.0
_hang_report = None
_armed: float | None = None  # the timer now running (seconds), None when none is


def _arm(seconds: float | None) -> None:
    global _armed
    _armed = seconds
    if seconds is None:
        faulthandler.cancel_dump_traceback_later()
    else:
        faulthandler.dump_traceback_later(seconds, exit=True, file=_hang_report or sys.__stderr__)


def _report_file(config):
    """Where a hang's tracebacks go: the terminal's stderr as it was before pytest captured it (a capture
    file would be lost with the process), else whatever stderr is."""
    capman = config.pluginmanager.getplugin("capturemanager")
    try:
        saved = capman._global_capturing.err.targetfd_save  # pytest's copy of the original fd 2
        return os.fdopen(os.dup(saved), "w")
    except Exception:  # noqa: BLE001 - no capture, or pytest changed: stderr will do
        return sys.__stderr__


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _hang_report
    if TEST_TIMEOUT_S <= 0:
        yield
        return
    if _hang_report is None:
        _hang_report = _report_file(item.config)
    _arm(TEST_TIMEOUT_S)
    try:
        yield  # setup, call, teardown and the report of each: a hang while formatting a failure counts
    finally:
        _arm(None)


@pytest.hookimpl(trylast=True)
def pytest_exception_interact():
    # pytest's faulthandler plugin (tryfirst) cancels every timer when a test fails, for the debugger's
    # sake: the backstop is armed again, so a teardown that hangs after a failure still ends.
    if _armed is not None:
        _arm(_armed)


def _disarm_for_fork():
    # A fork keeps the timer's state but not its watchdog thread, and a child that cancels it (pytest's own
    # faulthandler plugin does, in a nested pytest.main) then waits for that thread forever: the timer is
    # off across a fork, and the parent's is armed again (afresh: it stays a backstop, not a budget).
    if _armed is not None:
        faulthandler.cancel_dump_traceback_later()


def _rearm_after_fork():
    if _armed is not None:
        _arm(_armed)


if TEST_TIMEOUT_S > 0:
    os.register_at_fork(before=_disarm_for_fork, after_in_parent=_rearm_after_fork)


def pytest_unconfigure(config):
    # Interpreter shutdown collects what tests left (a zmq context, say): it must end within a bound too.
    if TEST_TIMEOUT_S > 0:
        _arm(SHUTDOWN_TIMEOUT_S)
