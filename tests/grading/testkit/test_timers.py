"""``assignments/grading/testkit/timers.py``: ``raising_after`` stops the main thread with the given error
once its clock (wall or this process's CPU time) has run, and leaves the process as it found it."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from assignments.grading.testkit.timers import raising_after


class TimeIsUp(Exception):
    pass


def test_the_wall_clock_raises_in_a_sleeping_body():
    began = time.monotonic()
    with pytest.raises(TimeIsUp):
        with raising_after(0.2, "wall", TimeIsUp):
            time.sleep(5)
    assert 0.15 < time.monotonic() - began < 2


def test_the_cpu_clock_raises_in_a_busy_body_and_not_while_it_sleeps():
    with raising_after(0.2, "cpu", TimeIsUp):
        time.sleep(0.4)  # no CPU time used: nothing raised
    began = time.process_time()
    with pytest.raises(TimeIsUp):
        with raising_after(0.2, "cpu", TimeIsUp):
            while time.process_time() - began < 5:
                pass
    assert time.process_time() - began < 2


def test_a_body_that_ends_in_time_leaves_no_timer_and_the_old_handler():
    before = signal.getsignal(signal.SIGALRM)
    with raising_after(0.5, "wall", TimeIsUp):
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before
    time.sleep(0.7)  # the timer was cancelled: nothing raised later


def test_outside_the_main_thread_nothing_is_timed():
    outcome = []

    def body():
        with raising_after(0.1, "wall", TimeIsUp):
            time.sleep(0.3)
        outcome.append("finished")

    thread = threading.Thread(target=body)
    thread.start()
    thread.join(5)
    assert outcome == ["finished"]
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
