"""The Gradescope autograder zip of one assignment (``course gradescope-zip``).

The zip holds ``setup.sh`` (CPU torch and this package's dependencies in a venv, installed by uv at exactly
the versions of the lock for the image's Python: it ships every supported Python's ``locks/python3.X.txt``), ``run_autograder``
(runs ``python -m assignments.platforms.gradescope.runner`` on ``/autograder/submission``), and what grading needs:
the ``assignments`` package, ``autograder/<assignment>`` (without mutants or shortcut answers), the release
notebook of that assignment (the template the grader restores submissions from), its grading manifest
(``source/<a>/grading.json``: the questions' points and the shortcut rules, which is all grading reads of
the source notebook), ``pyproject.toml`` and ``nbgrader_config.py``. The source notebook, which holds the
solutions, stays out: nothing a submission can reach inside the container is worth full marks. Nothing
of other assignments goes in. The same inputs give the same zip, byte for byte.
"""

from __future__ import annotations

import io
import json
import shlex
import zipfile
from pathlib import Path

from assignments import locks as lockfile
from assignments import notebooks
from assignments.course import REPO, Assignment
from assignments.grader_files import PACKAGE_DIR, autograder_files

ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same inputs give the same zip, byte for byte


SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, while building the autograder image.
# AUTOGRADER_ROOT (default /autograder) lets a test rehearse it in a temporary tree;
# AUTOGRADER_PYTHON points at a Python that already has the dependencies (the venv then inherits them,
# so a rehearsal installs nothing); AUTOGRADER_BASE_PYTHON names the image's Python in place of apt's
# python3 (a rehearsal of the real install with another interpreter); PIP_INDEX_URL overrides the index
# (pip's own name for it; uv is given it too), TORCH_INDEX_URL the index torch comes from.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
if [ -n "${AUTOGRADER_PYTHON:-}" ]; then
    # A wrapper rather than a venv: a venv made from another venv's Python would not see its packages.
    mkdir -p "$ROOT/venv/bin"
    printf '#!/bin/sh\\nexec "%s" "$@"\\n' "$AUTOGRADER_PYTHON" > "$ROOT/venv/bin/python"
    chmod 755 "$ROOT/venv/bin/python"
    exit 0
fi
BASE_PYTHON="${AUTOGRADER_BASE_PYTHON:-}"
if [ -z "$BASE_PYTHON" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends python3 python3-pip python3-venv
    BASE_PYTHON=python3
fi
"$BASE_PYTHON" -m venv "$ROOT/venv"
# Exactly the versions of the course's lock for this image's Python (locks/, written by `course lock`).
PY=$("$ROOT/venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
LOCK="$ROOT/source/locks/python$PY.txt"
if [ ! -f "$LOCK" ]; then
    echo "This image's python3 is $PY; the course is locked for Python {pythons} only." >&2
    echo "Choose a Gradescope base image with one of those (Ubuntu 22.04 has 3.10, 24.04 has 3.12)." >&2
    exit 1
fi
# pip and uv at the lock's versions; uv does the two large installs (the 3.10 lock with torch took 26 s
# where pip took 2.2 min), byte-compiled as pip would, since a student's kernel may not write the cache.
"$ROOT/venv/bin/python" -m pip install -c "$LOCK" pip uv
uv_install=("$ROOT/venv/bin/uv" pip install --python "$ROOT/venv/bin/python")
# CPU-only torch first, on its own: Gradescope has no GPU and the CUDA build is gigabytes. The lock's
# install below finds it already there at the locked version and adds what it needs.
TORCH=$(sed -n 's/^torch==//p' "$LOCK")
"${uv_install[@]}" --no-deps --index-url "${TORCH_INDEX_URL:-https://download.pytorch.org/whl/cpu}" "torch==$TORCH"
"${uv_install[@]}" --compile-bytecode --index-url "${PIP_INDEX_URL:-https://pypi.org/simple}" -r "$LOCK"
# Refuse the image now, with the reason, where the sandbox could not run students' code correctly (a
# Python other users cannot reach, say): otherwise every hidden test would fail on correct code.
cd "$ROOT/source"
PYTHONPATH="$ROOT/source" "$ROOT/venv/bin/python" -m assignments.grading.sandbox.preflight
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
# The grader imports torch, then forks the zygote its student's kernel is forked from, so that both hold
# one copy of torch's memory (programs/zygote.py): the kernel, as a fork, could read this process's
# starting environment in /proc, so it starts with a clean one (grading's own settings, COURSE_* switches
# passed on) and with the settings a fork cannot change set to the kernel's.
keep=()
while IFS= read -r -d '' setting; do
    case "$setting" in COURSE_*) keep+=("$setting") ;; esac
done < /proc/self/environ
env -i PATH="${PATH:-/usr/local/bin:/usr/bin:/bin}" LANG=C.UTF-8 HOME="${HOME:-/root}" TMPDIR="${TMPDIR:-/tmp}" \\
    PYTHONPATH="$ROOT/source" HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TQDM_DISABLE=1 \\
    {start_env} "${keep[@]}" \\
    "$ROOT/venv/bin/python" "$ROOT/source/{zygote}" {zygote_flags} \\
    -m assignments.platforms.gradescope.runner \\
    --assignment {assignment} \\
    --submission-dir "$ROOT/submission" \\
    --metadata "$ROOT/submission_metadata.json" \\
    --out "$RESULTS"
status=$?
# A grader that failed (the runner says so with a non-zero status) or died (killed for memory, a broken
# venv) has scored nothing: no results.json, so that Gradescope shows "The autograder failed to execute
# correctly" (its docs/troubleshooting.md) to staff and student rather than a 0 that reads as the
# student's. The reason is in this script's output, which only staff see.
if [ "$status" -ne 0 ] || [ ! -s "$RESULTS" ]; then
    rm -f "$RESULTS"
    echo "GRADER FAILURE: the grader exited with status $status; no results.json, so Gradescope reports the failure."
    exit 1
fi
exit 0
"""


def grader_start(assignment: Assignment, python: str, script: str | None = None) -> tuple[list[str], dict[str, str]]:
    """(the command line's start, the settings it must start with) of one submission's grader, as
    ``run_autograder`` starts it: its kernel forked from a zygote that shares its pages and has imported
    what the notebook of ``assignment`` imports (``warm_kernels``).
    ``-m MODULE ARGS`` completes the command."""
    from assignments.grading.sandbox import warm_kernels
    from assignments.grading.sandbox.limits import Limits
    from assignments.grading.sandbox.process import kernel_env
    from assignments.release.hygiene import imported_modules

    code = "\n".join(notebooks.cell_text(c) for c in assignment.release_notebook().cells if c.cell_type == "code")
    preload = warm_kernels.runner_preload({module for _, module in imported_modules(code)})
    command = warm_kernels.runner_command(python, preload, script or str(warm_kernels.SCRIPT))
    return command, warm_kernels.runner_env(kernel_env(Path("/"), Limits()))


def run_autograder(hw: Assignment, package_dir: Path = PACKAGE_DIR) -> str:
    """``run_autograder`` for the assignment ``hw``: the grader started as ``grader_start`` says."""
    from assignments.grading.sandbox import warm_kernels

    script = Path(warm_kernels.SCRIPT).resolve().relative_to(Path(package_dir).resolve().parent).as_posix()
    command, start = grader_start(hw, "python", script)
    return (
        RUN_AUTOGRADER.replace("{assignment}", hw.name)
        .replace("{start_env}", " ".join(f"{name}={shlex.quote(value)}" for name, value in start.items()))
        .replace("{zygote}", script)
        .replace("{zygote_flags}", shlex.join(command[2:]))
    )


def build_autograder_zip(hw: Assignment, out: Path, package_dir: Path = PACKAGE_DIR) -> Path:
    """Write the Gradescope autograder zip for the assignment ``hw`` (of its course) to ``out``; returns
    ``out``. ValueError, with nothing written, where the course's ``gradescope_test_visibility`` is one the
    runner would refuse."""
    repo = hw.course.root
    _ = hw.course.settings.gradescope_test_visibility  # refused here, before a zip whose every grading would fail
    files = autograder_files(hw, Path(package_dir))
    manifest = json.dumps(hw.grading_manifest(), indent=1, sort_keys=True) + "\n"
    locks = _locks(repo)
    generated = {
        "setup.sh": (SETUP_SH.replace("{pythons}", ", ".join(sorted(locks))), 0o755),
        "run_autograder": (run_autograder(hw, Path(package_dir)), 0o755),
        hw.manifest_path.relative_to(hw.course.root).as_posix(): (manifest, 0o644),
    }
    for path in locks.values():
        if "torch" not in lockfile.read(path):
            raise FileNotFoundError(f"{path} pins no torch; run `course lock` (make lock)")
        generated[f"{lockfile.LOCK_DIR}/{path.name}"] = (path.read_text(encoding="utf-8"), 0o644)
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


def _locks(repo: Path) -> dict[str, Path]:
    """Python version -> lock file of every supported Python: the course's own beside ``repo``'s
    pyproject, else this checkout's (a course made for a test keeps the real locks)."""
    for root in (repo, REPO):
        locks = {python: lockfile.lock_path(python, root) for python in lockfile.supported_pythons(root)}
        if locks and all(path.is_file() for path in locks.values()):
            return locks
    raise FileNotFoundError(
        f"no lock for every supported Python in {repo}/{lockfile.LOCK_DIR}; run `course lock` (make lock)"
    )


def _add(archive: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # unix, so the mode bits below are honoured
    info.external_attr = (0o100000 | mode) << 16  # regular file with these permissions
    archive.writestr(info, data)
