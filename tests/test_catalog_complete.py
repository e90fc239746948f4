"""The guard: every assignment in the catalog has all its pieces.

The other tests take these pieces for granted (none of them skips when one is missing), so a missing
piece is named here, once, with what to do about it.
"""

from assignments import catalog
from assignments.paths import AUTOGRADER_DIR, RELEASE_DIR, REPO, SOLUTIONS_DIR, SOURCE_DIR


def missing_pieces(name: str) -> list[str]:
    release = f"run `course release {name}` and commit release/ and solutions/"
    pieces = [
        (SOURCE_DIR / name / f"{name}.ipynb", "write the source notebook as source/README.md says"),
        (RELEASE_DIR / name / f"{name}.ipynb", release),
        (SOLUTIONS_DIR / name / f"{name}.ipynb", release),
        (SOLUTIONS_DIR / name / "model_answers.md", release),
        (AUTOGRADER_DIR / name / "__init__.py", "write the hidden suite as autograder/README.md says"),
    ]
    missing = [f"{path.relative_to(REPO)} is missing: {todo}" for path, todo in pieces if not path.is_file()]
    if not any((AUTOGRADER_DIR / name).glob("test_*.py")):
        missing.append(f"autograder/{name}/test_*.py is missing: write the hidden suite as autograder/README.md says")
    return missing


def test_every_catalog_assignment_has_source_release_solutions_and_hidden_suite():
    missing = {name: missing_pieces(name) for name in catalog.COURSE_ORDER}
    missing = {name: pieces for name, pieces in missing.items() if pieces}
    assert not missing, "catalog assignments with missing pieces (assignments/catalog.py lists them):\n" + \
        "\n".join(f"  {name}: {piece}" for name, pieces in missing.items() for piece in pieces)
