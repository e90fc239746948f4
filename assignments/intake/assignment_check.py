"""Whether a file is a notebook the doors can grade (read by the doors' own reader) and whether it is
another assignment's (by its file name or the grade ids only that assignment's source has)."""

from __future__ import annotations

from pathlib import Path

from assignments.intake.names import name_stem
from assignments.intake.records import Candidate


def read_notebook(data: bytes) -> tuple[set[str] | None, str | None]:
    """(grade_ids of its cells, None), or (None, why these bytes are not a notebook the doors can grade).

    The doors' own reader decides, so intake and grading never disagree about what is readable."""
    # Deferred: load's imports reach torch, which readers of an IntakeResult (the exports' roster) never need.
    from assignments.grading.submission.load import load_submission

    nb, _, findings = load_submission(data)
    if nb is None:
        return None, "; ".join(f.message for f in findings if f.severity == "error") or "it cannot be read"
    ids = set()
    for cell in nb.cells:
        grading = cell.get("metadata", {}).get("nbgrader")
        if isinstance(grading, dict) and isinstance(grading.get("grade_id"), str):
            ids.add(grading["grade_id"])
    return ids, None


def notebook_problem(data: bytes) -> str | None:
    """Why these bytes are not a readable notebook (None: they are)."""
    return read_notebook(data)[1]


def assignment_fingerprints(root: Path | None = None) -> dict[str, set[str]]:
    """assignment -> grade_ids of its source notebook (used to recognise another assignment's notebook)."""
    from assignments.course import default

    root = Path(root) if root else default().source_dir
    found: dict[str, set[str]] = {}
    if not root.is_dir():
        return found
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        for path in sorted(folder.glob("*.ipynb")):
            try:
                ids, _ = read_notebook(path.read_bytes())
            except OSError:
                continue
            if ids is not None:
                found[folder.name] = ids
    return found


def known_assignments(fingerprints: dict[str, set[str]]) -> set[str]:
    from assignments.course import default

    return set(default().order) | set(fingerprints)


def which_assignment(
    candidate: Candidate, assignment: str, fingerprints: dict[str, set[str]], known: set[str]
) -> str | None:
    """Name of the other assignment this notebook belongs to, when recognisable; else None."""
    stem = name_stem(candidate.original_name)
    if stem != assignment.lower() and stem in {k.lower() for k in known}:
        return next(k for k in known if k.lower() == stem)
    if fingerprints and assignment in fingerprints and candidate.grade_ids is not None:
        ids = candidate.grade_ids
        # Only grade_ids that belong to one assignment count (every notebook has "setup", say).
        score = {}
        for name, own in fingerprints.items():
            others = set().union(*(fp for other, fp in fingerprints.items() if other != name))
            score[name] = len(ids & (own - others))
        best = max((n, name) for name, n in score.items() if name != assignment) if len(score) > 1 else (0, None)
        if best[0] >= 2 and best[0] > score[assignment]:
            return best[1]
    return None
