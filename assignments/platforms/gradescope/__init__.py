"""Gradescope's wing: the autograder zip (``bundle``) and what runs inside it on Gradescope's machine
(``runner``: grade the upload, write results.json). The locks the zip installs are the course's
(``assignments/locks.py``), the results.json writer is an export (``assignments/exports/gradescope.py``),
and reading Gradescope's "Export Submissions" is intake's (``assignments/intake/gradescope_metadata.py``)."""
