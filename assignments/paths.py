"""Where things live in the course repository. Every module asks here instead of guessing."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE_DIR = REPO / "source"
RELEASE_DIR = REPO / "release"
SOLUTIONS_DIR = REPO / "solutions"
AUTOGRADER_DIR = REPO / "autograder"
BUILD_DIR = REPO / "build"
GRADES_DIR = REPO / "grades"
DIST_DIR = REPO / "dist"
