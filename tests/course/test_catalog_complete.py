"""The guard: every assignment in the catalog has all its pieces.

The other tests take these pieces for granted (none of them skips when one is missing), so a missing
piece is named here, once, with what to do about it.
"""

from assignments.course import REPO, default


def missing_pieces(name: str) -> list[str]:
    hw = default().assignment(name)
    release = f"run `course release {name}` and commit release/ and solutions/"
    pieces = [
        (hw.source_folder / f"{name}.ipynb", "write the source notebook as source/README.md says"),
        (hw.release_folder / f"{name}.ipynb", release),
        (hw.solution_path, release),
        (hw.solutions_folder / "model_answers.md", release),
        (hw.suite_dir / "__init__.py", "write the hidden suite as autograder/README.md says"),
    ]
    missing = [f"{path.relative_to(REPO)} is missing: {todo}" for path, todo in pieces if not path.is_file()]
    if not any(hw.suite_dir.glob("test_*.py")):
        missing.append(f"autograder/{name}/test_*.py is missing: write the hidden suite as autograder/README.md says")
    return missing


def test_every_catalog_assignment_has_source_release_solutions_and_hidden_suite():
    missing = {name: missing_pieces(name) for name in default().order}
    missing = {name: pieces for name, pieces in missing.items() if pieces}
    assert not missing, "catalog assignments with missing pieces (assignments/course.py lists them):\n" + "\n".join(
        f"  {name}: {piece}" for name, pieces in missing.items() for piece in pieces
    )
