"""``make demo`` grades two assignments at once, each printing into its own log, and shows each log whole
once its assignment is done (``assignments/demo/run.py``): the log must read as a terminal would have
shown it, so a progress bar that redrew itself with carriage returns leaves only its last state."""

from assignments.demo.run import final_lines


def test_a_redrawn_progress_bar_leaves_only_its_last_state():
    log = "repaired for nbgrader\ngrading toy:   0%| 0/2\rgrading toy:  50%| 1/2\rgrading toy: 100%| 2/2\r\ndone\n"
    assert final_lines(log) == "repaired for nbgrader\ngrading toy: 100%| 2/2\ndone", (
        "each line of the log should keep only what follows its last carriage return"
    )


def test_lines_without_carriage_returns_are_kept_as_they_are():
    log = "student  total\n1001     0/27\n\nboth doors agree on every question\n"
    assert final_lines(log) == log.rstrip("\n"), "a log without progress bars should be shown unchanged"
