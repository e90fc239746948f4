"""Stop the grader's main thread with an exception once a clock has run for a number of seconds: wall time
for a student's snippet run in this process (the nbgrader door), this process's CPU time for a hidden test
(its budget). Only the main thread can take a signal; elsewhere nothing is timed."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable

# clock name -> (the interval timer, the signal it sends); looked up by name so that a platform without
# interval timers can still import this module
CLOCKS = {"wall": ("ITIMER_REAL", "SIGALRM"), "cpu": ("ITIMER_PROF", "SIGPROF")}


@contextlib.contextmanager
def raising_after(seconds: float, clock: str, make_error: Callable[[], BaseException]):
    """Raise ``make_error()`` in the body once ``clock`` ("wall" or "cpu") has run ``seconds`` more."""
    timer_name, signal_name = CLOCKS[clock]
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, timer_name):
        yield
        return
    timer, signum = getattr(signal, timer_name), getattr(signal, signal_name)

    def on_timer(signum, frame):
        raise make_error()

    previous = signal.signal(signum, on_timer)
    signal.setitimer(timer, seconds)
    try:
        yield
    finally:
        signal.setitimer(timer, 0)
        signal.signal(signum, previous)
