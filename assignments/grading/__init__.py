"""The grading engine, in folders by concern (docs/explanation/architecture.md). One submission's path runs
straight down this list, entering each folder once:

- ``submission``: read a file, check it is this assignment's, recover lost metadata, restore locked and
  test cells from the release, audit, find forbidden shortcuts (``submission.prepare``);
- ``sandbox``: run the prepared cells in an isolated kernel with limits, and the snippet protocol that
  hidden tests reach student code through;
- ``testkit``: what hidden suites import (``question``, the checks, the handle, stand-ins) and the suite
  runner; it imports no sandbox and no door;
- ``doors``: the ways in (standalone, batch, in-process, nbgrader with its preprocessors), each putting
  the three above together and returning a ``results.model.SubmissionResult``;
- ``selftest``: the autograder's own tests (reference, blank, mutants, variants, coverage).

``environment`` (the environment every graded run gets) is shared by all of them. ``door`` is the path
source notebooks' hidden-test regions import; it stays where it was for existing gradebooks.
"""
