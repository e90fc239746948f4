"""Instructor tooling for the course: release pipeline, grading engine, exports."""
