"""A class graded on a real Slurm cluster (docs/how-to/large-class.md): `course cluster slurm` renders the array
job and the dependent merge for the tutorial's class of the toy course, its submit.sh submits them to the
single-node cluster `.ci/install-slurm` configures (`make slurm`), and the merged run must hold the same records
as an unsharded `course grade` of the same download, graded meanwhile on this machine.

Needs Slurm's client commands and a node that accepts jobs: skips without them, fails instead with
COURSE_REQUIRE_TOOLS=1 (CI, after `make slurm`). `make slurm-test` runs it; about a minute and a half on 2
cores. The rendered scripts' quoting is checked without Slurm in tests/test_cluster_render.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assignments.course import REPO
from tests.fixtures import tutorial
from tests.helpers import tool_unavailable

pytestmark = pytest.mark.xdist_group("slurm")
SHARDS = 2
WAIT_S = 600


def slurm_ready() -> str | None:
    """Why no job can run here, or None."""
    for program in ("sbatch", "squeue", "sinfo", "scontrol"):
        if shutil.which(program) is None:
            return f"Slurm's {program} is not installed (make slurm)"
    try:
        states = subprocess.run(
            ["sinfo", "--noheader", "--format=%T"], capture_output=True, text=True, timeout=30
        ).stdout.split()
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"sinfo failed: {error}"
    if not any(state.rstrip("*~#").startswith(("idle", "mixed", "allocated")) for state in states):
        return f"no Slurm node accepts jobs (sinfo: {states or 'nothing'}; make slurm starts one)"
    return None


def records(run: Path) -> dict[str, dict]:
    """student -> record, without what differs between two gradings of one notebook: timings, the file's
    path, and digits in findings (durations; the random uid a kernel ran as)."""
    found = {}
    for path in sorted((run / "results").glob("*.json")):
        data = json.loads(path.read_text())
        for key in ("timings", "source_file"):
            data.pop(key)
        for question in data["questions"]:
            for test in question["tests"]:
                test.pop("seconds")
        for finding in data["findings"]:
            finding["message"] = "".join(ch for ch in finding["message"] if not ch.isdigit())
        found[path.stem] = data
    return found


def job_state(job: str) -> str:
    shown = subprocess.run(["scontrol", "show", "job", job], capture_output=True, text=True).stdout
    for word in shown.split():
        if word.startswith("JobState="):
            return word.partition("=")[2]
    return "gone"


def test_an_array_job_and_its_dependent_merge_grade_the_class_as_one_machine_does(tmp_path):
    missing = slurm_ready()
    if missing:
        tool_unavailable(missing)
    course = tmp_path / "course"
    tutorial.build(course)
    download = course / "downloads" / "submissions.zip"
    env = {**os.environ, "PYTHONPATH": str(REPO)}  # the compute node (this machine) imports this checkout
    command = [sys.executable, "-m", "assignments"]
    rendered = subprocess.run(
        [*command, "cluster", "slurm", "toy", str(download), "--shards", str(SHARDS), "--workers", "1"]
        + ["--root", str(course), "--out", str(tmp_path / "slurm")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert rendered.returncode == 0, rendered.stdout + rendered.stderr
    submitted = subprocess.run([str(tmp_path / "slurm" / "submit.sh")], capture_output=True, text=True, env=env)
    assert submitted.returncode == 0, f"submit.sh failed:\n{submitted.stdout}\n{submitted.stderr}"
    grade_job, merge_job = (tmp_path / "slurm" / "jobs").read_text().split()
    # The same class graded whole on this machine while the cluster grades it in shards.
    whole = subprocess.run(
        [*command, "grade", "toy", str(download), "--workers", "1", "--root", str(course)]
        + ["--out", str(tmp_path / "whole")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert whole.returncode == 0, whole.stdout[-3000:] + whole.stderr[-3000:]
    deadline = time.monotonic() + WAIT_S
    while job_state(merge_job) in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING"):
        assert time.monotonic() < deadline, f"the merge job {merge_job} did not finish within {WAIT_S} s"
        time.sleep(2)
    logs = tmp_path / "slurm" / "logs"
    shown = "\n".join(f"--- {log.name}\n{log.read_text()[-2000:]}" for log in sorted(logs.glob("*.log")))
    assert job_state(merge_job) == "COMPLETED", f"merge job {merge_job}: {job_state(merge_job)}\n{shown}"
    shards = [records(tmp_path / "slurm" / "runs" / f"shard-{i}") for i in range(SHARDS)]
    assert sum(len(shard) for shard in shards) == 3, f"each student graded by exactly one array task:\n{shown}"
    merged, alone = records(tmp_path / "slurm" / "merged"), records(tmp_path / "whole")
    assert sorted(merged) == sorted(alone) == ["1001", "1002", "1003"], (sorted(merged), sorted(alone))
    assert merged == alone, "the merged shards' records differ from the unsharded grading's"
    assert (tmp_path / "slurm" / "merged" / "exports").is_dir(), "the merge job writes the exports"
    assert grade_job != merge_job
