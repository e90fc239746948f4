"""Pages of docs/ run as a reader runs them: the tutorial, and the how-to for adding a question."""
