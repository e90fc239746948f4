"""Hand grading: nbgrader's formgrader served for TAs (``formgrader``, with the server extension that shows
submissions inert and lets only formgrader through, ``formgrader_extension``) and the written answers as
per-student PDFs (``written``, ``course written``)."""
