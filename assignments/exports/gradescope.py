"""Gradescope: ``results.json`` from a results record, and a buildable autograder zip for an assignment.

results.json follows Gradescope's autograder specification: a top-level ``score`` (the autograded
points, which Gradescope uses instead of summing the tests), ``execution_time``, ``output`` for the
whole submission, and one entry per hidden test in ``tests`` (``name``, ``score``, ``max_score``,
``status``, ``output``, ``visibility``). Written (manually graded) questions are left out: on Gradescope
they are separate, hand-graded questions of the assignment, and the output line says so.

The zip holds ``setup.sh`` (CPU torch and this package's dependencies in a venv), ``run_autograder``
(runs ``python -m assignments.exports.gradescope run`` on ``/autograder/submission``), and what grading
needs: the ``assignments`` package, ``autograder/<assignment>`` (without mutants or shortcut answers),
the source and release notebooks of that assignment, ``pyproject.toml`` and ``nbgrader_config.py``.
Nothing of other assignments goes in.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
import traceback
import zipfile
from pathlib import Path, PurePosixPath

from ..results.model import Finding, SubmissionResult, rejected
from ..course import REPO
from .text import execution_seconds, humanise_question, humanise_test, points, safe_message, student_findings

PACKAGE_DIR = Path(__file__).resolve().parent.parent
ZIP_DATE = (1980, 1, 1, 0, 0, 0)   # fixed timestamps: the same inputs give the same zip, byte for byte
SKIP_PARTS = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache", "mutants", "shortcuts", ".DS_Store"}


# ---------------------------------------------------------------- results.json


VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")


def test_visibility(pyproject: Path | None = None) -> str:
    """``[tool.course] gradescope_test_visibility``: when students see hidden tests' names and messages.

    Gradescope's values: visible (default, as before), after_due_date, after_published, hidden.
    """
    import tomllib

    try:
        with open(pyproject or REPO / "pyproject.toml", "rb") as handle:
            value = tomllib.load(handle).get("tool", {}).get("course", {}).get("gradescope_test_visibility", "visible")
    except (OSError, ValueError):
        return "visible"
    if value not in VISIBILITIES:
        raise ValueError(f"[tool.course] gradescope_test_visibility is {value!r}; expected one of {VISIBILITIES}")
    return value


def results_json(result: SubmissionResult, visibility: str | None = None) -> dict:
    """The Gradescope results.json for one record."""
    visibility = visibility or test_visibility()
    tests = []
    for question in result.questions:
        if question.kind != "autograded":
            continue
        title = humanise_question(question.grade_id)
        if not question.tests:
            # Nothing ran for this question (rejected submission, or the grader stopped early).
            tests.append({
                "name": f"{title}: not graded",
                "score": float(question.points or 0.0),
                "max_score": float(question.max_points),
                "status": "failed",
                "output": "no hidden test ran for this question; see the message at the top",
                "tags": [question.grade_id],
                "visibility": "visible",
            })
            continue
        for test in question.tests:
            tests.append({
                "name": f"{title}: {humanise_test(test.name)}",
                "score": float(test.points),
                "max_score": float(test.max_points),
                "status": "passed" if test.outcome == "passed" else "failed",
                "output": safe_message(test.message) if test.outcome != "passed" else "passed",
                "tags": [question.grade_id],
                "visibility": visibility,
            })
    return {
        "score": float(round(result.autograded_points, 4)),
        "execution_time": int(round(execution_seconds(result))),
        "output": overall_output(result),
        "output_format": "text",
        "stdout_visibility": "hidden",
        "visibility": "visible",
        "tests": tests,
        "extra_data": {"student": result.student, "assignment": result.assignment, "door": result.door,
                       "status": result.status,
                       "autograded_max": float(result.autograded_max)},
    }


def overall_output(result: SubmissionResult) -> str:
    lines = [f"Autograded score: {points(result.autograded_points)} / {points(result.autograded_max)}"]
    if result.status == "rejected":
        lines.append("Your notebook could not be graded, so every autograded question scores 0. "
                     "The notes below say why.")
    manual = [q for q in result.questions if q.kind == "manual"]
    if manual:
        names = ", ".join(f"{humanise_question(q.grade_id)} ({points(q.max_points)} pts)" for q in manual)
        lines.append(f"Written answers are graded by hand, separately: {names}.")
    findings = student_findings(result)
    if findings:
        lines.append("")
        lines.append("Notes from the grader:")
        for finding in findings:
            where = f" [{finding.cell}]" if finding.cell else ""
            lines.append(f"- {finding.severity}{where}: {finding.message}")
    return "\n".join(lines)


def write_results_json(result: SubmissionResult, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results_json(result), indent=2) + "\n", encoding="utf-8")
    return path


def write_all(results: list[SubmissionResult], folder: Path) -> list[Path]:
    """One ``<student>.json`` per record (what Gradescope would show each student)."""
    return [write_results_json(r, Path(folder) / f"{r.student}.json") for r in results]


# ---------------------------------------------------------------- running inside Gradescope


def find_notebook(submission_dir: Path, assignment: str) -> tuple[Path | None, list[str]]:
    """The notebook to grade in a Gradescope submission folder, and notes for the student."""
    notes = []
    found = sorted(p for p in Path(submission_dir).rglob("*.ipynb")
                   if not any(part in SKIP_PARTS or part == "__MACOSX" for part in p.parts))
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
        from ..course import resolve

        expected = {q.grade_id for q in resolve(assignment).questions}
    except Exception:  # noqa: BLE001 - without the source we cannot tell; let the grader decide
        return None
    if expected and not (expected & ids):
        return (f"{notebook.name} does not hold any question of {assignment}; is it the notebook of another "
                f"assignment? Upload your completed {assignment}.ipynb")
    return None


def _standalone_grader():
    # Imported late: the grader lives in its own module and only this command needs it.
    from ..grading.standalone import grade_submission

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
    result.timings = {**(result.timings or {})}
    result.timings.setdefault("total_s", round(time.perf_counter() - start, 2))
    write_results_json(result, out)
    # Gradescope's stdout is shown to staff only: the full findings go there, unabridged.
    print(f"{student}: {points(result.autograded_points)} / {points(result.autograded_max)} -> {out}")
    for finding in result.findings:
        print(f"  [{finding.severity}] {finding.code}: {finding.message}")
    return results_json(result)


# ---------------------------------------------------------------- the autograder zip

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, while building the autograder image.
# AUTOGRADER_ROOT (default /autograder) lets a test rehearse it in a temporary tree;
# AUTOGRADER_PYTHON points at a Python that already has the dependencies (the venv then inherits them,
# so a rehearsal installs nothing); PIP_INDEX_URL is pip's own override of the index.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
if [ -n "${AUTOGRADER_PYTHON:-}" ]; then
    # A wrapper rather than a venv: a venv made from another venv's Python would not see its packages.
    mkdir -p "$ROOT/venv/bin"
    printf '#!/bin/sh\\nexec "%s" "$@"\\n' "$AUTOGRADER_PYTHON" > "$ROOT/venv/bin/python"
    chmod 755 "$ROOT/venv/bin/python"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends python3 python3-pip python3-venv
python3 -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --upgrade pip
# CPU-only torch first: Gradescope has no GPU and the CUDA build is gigabytes. pip keeps it afterwards.
"$ROOT/venv/bin/python" -m pip install --index-url "${TORCH_INDEX_URL:-https://download.pytorch.org/whl/cpu}" "{torch}"
"$ROOT/venv/bin/python" -m pip install -r "$ROOT/source/requirements.txt"
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission (working directory /autograder).
set -uo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
RESULTS="$ROOT/results/results.json"
mkdir -p "$ROOT/results"
# Docker refuses the sandbox's namespaces, so the student's kernel (its own uid) is kept out of the hidden
# tests, the upload and the results by permissions alone: they are root's only.
chmod -R go-rwx "$ROOT/source" "$ROOT/submission" "$ROOT/results" 2>/dev/null || true
cd "$ROOT/source"
export PYTHONPATH="$ROOT/source"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TQDM_DISABLE=1
"$ROOT/venv/bin/python" -m assignments.exports.gradescope run \\
    --assignment {assignment} \\
    --submission-dir "$ROOT/submission" \\
    --metadata "$ROOT/submission_metadata.json" \\
    --out "$RESULTS"
status=$?
# Gradescope shows "The autograder failed to execute correctly" when results.json is missing; if Python
# itself died (killed for memory, broken venv), write a score of 0 with a message instead.
if [ "$status" -ne 0 ] || [ ! -s "$RESULTS" ]; then
    cat > "$RESULTS" <<JSON
{"score": 0.0, "execution_time": 0, "stdout_visibility": "hidden", "visibility": "visible", "tests": [],
 "output": "The grader stopped before it could score this submission (exit status $status), so it scores 0. Please tell course staff."}
JSON
fi
exit 0
"""


def dependencies(pyproject: Path) -> list[str]:
    import tomllib

    with open(pyproject, "rb") as handle:
        return list(tomllib.load(handle)["project"]["dependencies"])


def _files_under(folder: Path, base: Path, skip_suffixes=(".pyc",)) -> list[tuple[str, Path]]:
    found = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if not path.is_file() or path.is_symlink() or any(part in SKIP_PARTS for part in relative.parts):
            continue
        if path.suffix in skip_suffixes or path.name.endswith(".tmp"):
            continue
        found.append((PurePosixPath(path.relative_to(base).as_posix()).as_posix(), path))
    return found


def autograder_files(assignment: str, repo: Path = REPO, package_dir: Path = PACKAGE_DIR) -> dict[str, Path]:
    """Archive name -> file on disk for everything grading ``assignment`` needs."""
    repo = Path(repo)
    files: dict[str, Path] = {}
    for name, path in _files_under(package_dir, package_dir.parent):
        files[name] = path
    suite = repo / "autograder" / assignment
    if not suite.is_dir():
        raise FileNotFoundError(f"no hidden tests at {suite}")
    for path in sorted((repo / "autograder").glob("*.py")):   # the autograder package's own modules
        files[f"autograder/{path.name}"] = path
    files.update(dict(_files_under(suite, repo)))
    for kind in ("source", "release"):
        folder = repo / kind / assignment
        if not any(folder.glob("*.ipynb")):
            hint = " (run `course release` first)" if kind == "release" else ""
            raise FileNotFoundError(f"no {kind} notebook in {folder}{hint}")
        files.update(dict(_files_under(folder, repo)))
    for name in ("pyproject.toml", "nbgrader_config.py"):
        if (repo / name).is_file():
            files[name] = repo / name
    if "pyproject.toml" not in files:
        raise FileNotFoundError(f"no pyproject.toml in {repo}")
    return files


def build_autograder_zip(assignment: str, out: Path, repo: Path = REPO, package_dir: Path = PACKAGE_DIR) -> Path:
    """Write the Gradescope autograder zip for ``assignment`` to ``out``; returns ``out``."""
    files = autograder_files(assignment, Path(repo), Path(package_dir))
    deps = dependencies(files["pyproject.toml"])
    torch = next((d for d in deps if d.replace(" ", "").lower().startswith("torch")), "torch")
    requirements = "".join(f"{d}\n" for d in deps if d != torch)
    generated = {
        "setup.sh": (SETUP_SH.replace("{torch}", torch), 0o755),
        "run_autograder": (RUN_AUTOGRADER.replace("{assignment}", assignment), 0o755),
        "requirements.txt": (requirements, 0o644),
    }
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, (text, mode) in sorted(generated.items()):
            _add(archive, name, text.encode("utf-8"), mode)
        for name, path in sorted(files.items()):
            _add(archive, name, path.read_bytes(), 0o644)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(buffer.getvalue())
    tmp.replace(out)
    return out


def _add(archive: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3                       # unix, so the mode bits below are honoured
    info.external_attr = (0o100000 | mode) << 16  # regular file with these permissions
    archive.writestr(info, data)


# ---------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m assignments.exports.gradescope", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run_cmd = sub.add_parser("run", help="grade one Gradescope submission and write results.json")
    run_cmd.add_argument("--assignment", required=True)
    run_cmd.add_argument("--submission-dir", type=Path, default=Path("/autograder/submission"))
    run_cmd.add_argument("--metadata", type=Path, default=None)
    run_cmd.add_argument("--out", type=Path, default=Path("/autograder/results/results.json"))
    zip_cmd = sub.add_parser("zip", help="build the autograder zip for an assignment")
    zip_cmd.add_argument("assignment")
    zip_cmd.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args.assignment, args.submission_dir, args.out, args.metadata)
        return 0
    from ..course import default

    out = build_autograder_zip(args.assignment, args.out or default().dist_dir / "gradescope" / f"{args.assignment}.zip")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TQDM_DISABLE", "1")
    sys.exit(main())
