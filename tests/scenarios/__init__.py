"""Whole runs on the toy course: an instructor's term end to end, and one run of intake, grading and every
export."""
