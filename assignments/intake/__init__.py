"""LMS intake: turn a bulk download (one .ipynb, a folder, or a zip) into one submission per student.

Layouts it reads, in a zip or a folder alike (a single top folder around everything, such as a zipped
download folder, is looked through when what it holds is clearly a class: LMS names, or several items
none of which is a notebook named after the assignment):

- Gradescope's "Export Submissions": ``submission_metadata.yml`` at the top and one folder per submission
  (``gradescope_metadata.py``). The metadata says who sent each folder (student id, else email; a group
  submission belongs to every member, each graded on it) and when.
- Canvas:  ``doejane_12345_67890_transformers.ipynb`` and late ones ``doejane_LATE_12345_67890_...``
  (name lowercase without separators, Canvas user id, submission/attachment id, the uploaded name)
- Moodle:  ``Jane Doe_12345_assignsubmission_file_transformers.ipynb`` (or a folder
  ``Jane Doe_12345_assignsubmission_file_/transformers.ipynb``)
- a plain folder: ``jdoe.ipynb`` is student ``jdoe``
- one folder per student: ``jdoe/<anything>.ipynb`` is student ``jdoe`` (nbgrader's
  ``submitted/<student>/<assignment>/`` too)

Who sent a file is read from the outermost name the LMS or the instructor wrote, never from anything a
student named: not from the file name after an LMS prefix, not from paths inside a student's or a
submission's folder. A backslash is a character of a name, never a folder separator (zip names use "/").
A name that says who sent a file is refused when it holds a backslash, a NUL, a control character or
only dots, or names two Moodle participants; the same in a student's own file name is flagged and the
file kept in that student's slot. The student key is the LMS user id where there is one (it joins the
LMS gradebook), else the name made safe for a folder; two different students whose keys would coincide
once letter case, Unicode form or the characters a key drops are ignored are kept apart under distinct
keys and flagged for staff. Class-level problems (duplicates, late files, wrong files, students without
a notebook, unreadable or unsafe entries) come back as ``IntakeFinding`` records.

Notebooks are read the way the grading doors read them (``grading.submission.load``), so a file intake
accepts is one the doors can grade. Nothing is ever written where an archive entry's name says: each
kept notebook is copied to ``<dest>/<student>/<safe name>.ipynb``. Limits apply per student: the files one
student sent, the bytes their notebooks expand to, how deep and how long their names go; past them that
student gets an "over-limit" finding and the class goes on. Only backstops sized for a whole class at
full allowance (memory, time) refuse a whole archive.

How a download is read is the instructor's choice (``layout``: auto, folder, canvas, moodle, gradescope);
"auto" takes a Gradescope export only from structure Gradescope alone writes (its metadata at the top
beside nothing but ``submission_<id>`` folders), never from a file a student uploaded.

The steps live in their own modules: ``records`` (the error and the candidate every step fills in),
``archives`` (bounded readers for a zip or a folder), ``names`` (each LMS's names, refused names, student
keys), ``gradescope_metadata`` (who sent each folder of a Gradescope export), ``layouts`` (which layout a
download is, so who sent each file), ``assignment_check`` (readable notebook, another assignment's) and
``collection`` (``collect``: the intake itself). The manifest intake writes is the run's
(``assignments/runs/manifest.py``).
"""

from assignments.intake.assignment_check import assignment_fingerprints, notebook_problem, read_notebook
from assignments.intake.collection import collect
from assignments.intake.names import LAYOUTS, parse_name, safe_key
from assignments.intake.records import IntakeError
from assignments.runs.manifest import IntakeFinding, IntakeResult, Submission

__all__ = [
    "IntakeError",
    "IntakeFinding",
    "IntakeResult",
    "LAYOUTS",
    "Submission",
    "assignment_fingerprints",
    "collect",
    "notebook_problem",
    "parse_name",
    "read_notebook",
    "safe_key",
]
