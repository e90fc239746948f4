"""Feedback back to students, the way each LMS takes it (``course feedback``).

The feedback pages themselves are ``exports/feedback.py``'s; this wing puts each one where its student
will find it, and keeps a record of what went to whom:

- Canvas: a zip for SpeedGrader's "Re-Upload Submissions", each page named as Canvas named that student's
  file in its "Download Submissions" zip, so Canvas attaches it to that student's submission as a
  comment (``canvas_reupload``); or Canvas's API through canvasapi, with a dry run (``canvas_api``).
- Moodle: a zip for "Upload multiple feedback files in a zip", each page in a folder named as Moodle names
  that participant's download (``moodle_zip``).
- Gradescope and PrairieLearn: nothing to deliver; each student's feedback is in the results.json their
  platform shows (``exports/gradescope.py``, ``platforms/prairielearn/results.py``).

Who a page goes to comes only from the run's intake manifest (the LMS's own ids in its download's names);
every name a zip holds is rebuilt from those ids, checked against the LMS's own reading rule and written by
one zip writer that refuses anything that could leave its folder (``archive``). A student whose grade is
not true yet (written answers not graded, a grader problem) is held back, with the reason
(``release.held_reason``). Every release is appended to ``<run>/feedback/released.json`` (``record``): per
student the file, its checksum, the LMS key, when, and the results it was made from.

``deliver.deliver`` is the command's one call: it reads the run once (``workflow.gather_export_job``: the
records with hand grades, the names) and releases through the chosen way in.
"""
