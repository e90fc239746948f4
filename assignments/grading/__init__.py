"""The grading engine: hidden pytest suites run behind nbgrader autograde or the standalone grader."""
