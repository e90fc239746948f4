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


def nbgrader_door_dir(assignment: str) -> Path:
    """Where the nbgrader door (``course autograde``, the demo) keeps its records by default."""
    return GRADES_DIR / assignment / "nbgrader"


def nbgrader_course(door_dir: Path) -> Path:
    """nbgrader's own course folder inside a door folder: gradebook.db, submitted/ and autograded/, the
    folder formgrader opens. Kept between runs so hand grades survive a regrade."""
    return Path(door_dir) / "course"


def similarity_dir(assignment: str) -> Path:
    """Where ``course similarity`` writes its report by default (beside the assignment's grades)."""
    return GRADES_DIR / assignment / "similarity"


def repair_dir(parent: Path) -> Path:
    """Where repaired copies (nbgrader's submitted/ layout) and repair.json go inside an output folder:
    ``course repair`` uses grades/<assignment>/repair, the nbgrader door its own folder's repair/."""
    return Path(parent) / "repair"
