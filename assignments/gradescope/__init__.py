"""Gradescope's wing: the autograder zip (``bundle``), what runs inside it on Gradescope's machine
(``runner``: grade the upload, write results.json), the locked package versions that zip and every install
use (``lock``), and who sent each folder of Gradescope's "Export Submissions" (``submission_metadata``, read
by intake). The results.json writer itself is an export (``assignments/exports/gradescope.py``)."""
