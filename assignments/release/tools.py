"""Running nbgrader and nbconvert for a release: offline, without grading flags inherited from the caller,
with a deadline, and failures reported with the tail of what the tool printed."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

from assignments.grading.doors.nbgrader import cli as nbgrader_cli
from assignments.release.errors import StepFailed

SUBPROCESS_TIMEOUT = 1800  # seconds for one nbgrader / nbconvert run (cells have their own limits)
CELL_TIMEOUT = 300  # seconds per cell when executing solutions
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TQDM_DISABLE": "1"}


def tool_env(extra: dict | None = None, package_on_path: bool = True, threads: int | None = None) -> dict:
    """The environment of one nbgrader or nbconvert run: offline, no grading-mode flags inherited from the
    caller, ``threads`` OpenMP/MKL threads when several notebooks run at once."""
    env = nbgrader_cli.environment(package_on_path=package_on_path)
    env.pop("NBGRADER_EXECUTION", None)
    env.pop("NBGRADER_VALIDATING", None)
    for key, value in OFFLINE_ENV.items():
        env.setdefault(key, value)
    if threads:
        for key in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(key, str(threads))
    env.update(extra or {})
    return env


def run_tool(command: list[str], cwd: Path, env: dict, what: str) -> str:
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=SUBPROCESS_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        raise StepFailed(f"{what}: still running after {SUBPROCESS_TIMEOUT} s; stopped") from None
    if done.returncode != 0:
        raise StepFailed(f"{what} failed (exit {done.returncode}):\n{tail(done.stdout)}")
    return done.stdout


def tail(text: str, lines: int = 40) -> str:
    kept = text.rstrip().split("\n")[-lines:]
    return textwrap.indent("\n".join(kept), "    ")


def nbgrader_command(*args: str) -> list[str]:
    quiet = ["--log-level=WARN"] if args[0] != "validate" else []  # validate has no --log-level
    return nbgrader_cli.command(*args, *quiet)
