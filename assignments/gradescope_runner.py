"""What ``run_autograder`` runs inside Gradescope's container: find the uploaded notebook, grade it with the
standalone door, write ``/autograder/results/results.json``. Whatever goes wrong (no notebook, two, a
foreign or undecodable file, a grader error), a valid results.json with score 0 and a clear message is
written: Gradescope shows "The autograder failed to execute correctly" for anything else.

    python -m assignments.gradescope_runner --assignment transformers \
        [--submission-dir /autograder/submission] [--out /autograder/results/results.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path

from .exports.gradescope import results_json, write_results_json
from .exports.text import points
from .results.model import Finding, rejected

# Folders an upload may carry that hold no submission: editor caches and macOS zip metadata.
IGNORED_PARTS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", "__MACOSX"}


def find_notebook(submission_dir: Path, assignment: str) -> tuple[Path | None, list[str]]:
    """The notebook to grade in a Gradescope submission folder, and notes for the student."""
    notes = []
    found = sorted(p for p in Path(submission_dir).rglob("*.ipynb")
                   if not any(part in IGNORED_PARTS for part in p.parts))
    others = sorted(p.name for p in Path(submission_dir).rglob("*")
                    if p.is_file() and p.suffix.lower() != ".ipynb")
    if others:
        notes.append(f"ignored files that are not notebooks: {', '.join(others[:10])}")
    if not found:
        return None, notes
    # LMS downloads rename files ("smithj_1234_5678_transformers-1.ipynb"): an exact name wins, then
    # one that contains the assignment's name, then the newest.
    named = ([p for p in found if p.stem.lower() == assignment.lower()]
             or [p for p in found if assignment.lower() in p.stem.lower()])
    chosen = (named or sorted(found, key=lambda p: (p.stat().st_mtime, str(p))))[-1]
    if len(found) > 1:
        notes.append(f"several notebooks were uploaded; graded {chosen.name}")
    return chosen, notes


def submitter(metadata_path: Path) -> str:
    """The student key from Gradescope's submission_metadata.json (first user's email or id)."""
    try:
        data = json.loads(Path(metadata_path).read_text(encoding="utf-8"))
        user = (data.get("users") or [{}])[0]
        return str(user.get("email") or user.get("sid") or user.get("id") or "gradescope")
    except (OSError, ValueError, AttributeError, IndexError):
        return "gradescope"


def submission_facts(metadata_path: Path) -> dict:
    """What submission_metadata.json says about the submitter, in the roster's terms: ``name`` and, where
    Gradescope gives a due date (the student's own extension first) and the submission time, ``hours_late``."""
    try:
        data = json.loads(Path(metadata_path).read_text(encoding="utf-8"))
        user = (data.get("users") or [{}])[0]
        due = (user.get("assignment") or {}).get("due_date") or (data.get("assignment") or {}).get("due_date")
        facts = {"name": str(user.get("name") or "")}
        if due and data.get("created_at"):
            late = _moment(data["created_at"]) - _moment(due)
            facts["hours_late"] = max(0.0, late.total_seconds() / 3600)
        return facts
    except (OSError, ValueError, TypeError, AttributeError, IndexError):
        return {}


def _moment(text: str):
    from datetime import datetime

    return datetime.fromisoformat(str(text).replace("Z", "+00:00"))


def course_decisions(result, facts: dict):
    """``result`` with the course's late policy and excused questions applied (exports/adjust.py), as
    every other export applies them; a configuration error leaves it as graded and is printed for staff."""
    from .config import settings
    from .course import resolve
    from .exports import adjust

    try:
        config = settings(resolve(result.assignment).course.root)
        policy = adjust.LatePolicy.from_settings(config.get("late_policy"))
        excused = config.get("excused", {}).get(result.assignment, [])
        return adjust.apply([result], {result.student: facts}, policy, excused)[0]
    except ValueError as error:
        print(f"course configuration not applied: {error}")
        return result


MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024   # a filled notebook is well under 1 MB; outputs can add a few MB


def _unusable(notebook: Path, assignment: str) -> str | None:
    """Why ``notebook`` cannot be graded, checked before any kernel starts; None when it can."""
    size = notebook.stat().st_size
    if size > MAX_NOTEBOOK_BYTES:
        return (f"{notebook.name} is {size / 2**20:.0f} MB, more than the {MAX_NOTEBOOK_BYTES // 2**20} MB "
                f"a notebook may be; clear its outputs (Edit > Clear all outputs) and upload it again")
    try:
        data = json.loads(notebook.read_bytes().decode("utf-8"))
        cells = data["cells"]
        ids = {((c.get("metadata") or {}).get("nbgrader") or {}).get("grade_id") for c in cells}
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        return (f"{notebook.name} is not a readable Jupyter notebook (it is not valid notebook JSON); "
                f"download it again with File > Download > Download .ipynb and upload that file")
    try:
        from .course import resolve

        expected = {q.grade_id for q in resolve(assignment).questions}
    except Exception:  # noqa: BLE001 - without the source we cannot tell; let the grader decide
        return None
    if expected and not (expected & ids):
        return (f"{notebook.name} does not hold any question of {assignment}; is it the notebook of another "
                f"assignment? Upload your completed {assignment}.ipynb")
    return None


def _standalone_grader():
    # Imported late: the grader lives in its own module and only this command needs it.
    from .grading.standalone import grade_submission

    return grade_submission


def run(assignment: str, submission_dir: Path, out: Path, metadata: Path | None = None,
        grade=None) -> dict:
    """Grade the notebook in ``submission_dir`` and write results.json to ``out``; returns it.

    ``grade(assignment, path, student) -> SubmissionResult`` defaults to the standalone grader.
    """
    submission_dir, out = Path(submission_dir), Path(out)
    metadata = Path(metadata) if metadata else submission_dir.parent / "submission_metadata.json"
    student = submitter(metadata)
    start = time.perf_counter()
    notebook, notes = find_notebook(submission_dir, assignment)
    problem = _unusable(notebook, assignment) if notebook is not None else None
    if problem is not None:
        result = rejected(student, assignment, "standalone", Finding("bad-notebook", problem, "error"),
                          str(notebook))
    elif notebook is None:
        result = rejected(student, assignment, "standalone", Finding(
            "missing-notebook", f"no .ipynb file was uploaded; upload your completed {assignment}.ipynb", "error"))
    else:
        try:
            result = (grade or _standalone_grader())(assignment, notebook, student)
        except Exception as error:  # noqa: BLE001 - the student must get a readable results.json
            traceback.print_exc()   # goes to Gradescope's stdout, which only staff see
            result = rejected(student, assignment, "standalone",
                              Finding("grader-error", f"{type(error).__name__}: {error}", "error"), str(notebook))
    result.findings = [Finding("upload", note, "info") for note in notes] + list(result.findings)
    result = course_decisions(result, submission_facts(metadata))
    result.timings = {**(result.timings or {})}
    result.timings.setdefault("total_s", round(time.perf_counter() - start, 2))
    write_results_json(result, out)
    # Gradescope's stdout is shown to staff only: the full findings go there, unabridged.
    print(f"{student}: {points(result.autograded_points)} / {points(result.autograded_max)} -> {out}")
    for finding in result.findings:
        print(f"  [{finding.severity}] {finding.code}: {finding.message}")
    return results_json(result)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assignments.gradescope_runner", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assignment", required=True)
    parser.add_argument("--submission-dir", type=Path, default=Path("/autograder/submission"))
    parser.add_argument("--metadata", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=Path("/autograder/results/results.json"))
    args = parser.parse_args(argv)
    run(args.assignment, args.submission_dir, args.out, args.metadata)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TQDM_DISABLE", "1")
    sys.exit(main())
