"""The large-class guide (docs/how-to/large-class.md) run as a reader runs it, on a real Slurm cluster: every
command of its console blocks in order, on the tutorial's course, from a folder laid out as the repository's
root (as tests/docs/test_tutorial.py runs the tutorial). Its Slurm part renders the array job and the
dependent merge with `course cluster slurm` and submits them with submit.sh to the single-node cluster that
`.ci/install-slurm` configures (`make slurm`); the merged run must hold the same records as the guide's
unsharded `course grade` of the same download (and as its shards merged by hand), and the Kubernetes files
it renders must be valid objects of the API (tests/platforms/test_kubernetes_manifests.py).

Needs Slurm's client commands and a node that accepts jobs: skips without them, fails instead with
COURSE_REQUIRE_TOOLS=1 (CI, after `make slurm`). `make slurm-test` runs it. The rendered scripts' quoting
is checked without Slurm in tests/platforms/test_cluster.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from assignments.course import REPO
from tests.docs.test_tutorial import LINKED, blocks, environment, run, steps, unmatched
from tests.helpers import tool_unavailable
from tests.platforms.test_kubernetes_manifests import RELEASES, problems

PAGE = REPO / "docs" / "how-to" / "large-class.md"

pytestmark = pytest.mark.xdist_group("slurm")
SHARDS = 2


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


@pytest.fixture
def root(tmp_path) -> Path:
    """A folder that is the repository's root for the page's commands (as the tutorial's test makes it)."""
    if shutil.which("make") is None:
        tool_unavailable("make is not installed")
    for name in LINKED:
        (tmp_path / name).symlink_to(REPO / name)
    return tmp_path


def test_the_large_class_guide_runs_as_shown_and_slurm_grades_the_class_as_one_machine_does(root):
    """Every console block of docs/how-to/large-class.md in order (one machine, shards by hand, Slurm,
    Kubernetes), each checked against the lines the page shows; then the Slurm run's merged records must
    equal the one machine's, and so must the shards merged by hand; the Kubernetes files must be valid."""
    missing = slurm_ready()
    if missing:
        tool_unavailable(missing)
    env = environment(root)
    ran = []
    for language, body in blocks(PAGE.read_text(encoding="utf-8")):
        if language != "console":
            continue
        for command, shown in steps(body):
            started = time.monotonic()
            printed = run(command, root, env)
            missing_lines = unmatched(shown, printed)
            assert not missing_lines, (
                f"`{command}` did not print, in this order, the page's lines {missing_lines}; it printed:\n{printed}"
            )
            ran.append(f"{time.monotonic() - started:5.1f} s  {command}")
    print("\n".join(ran))
    large = root / "build" / "large"
    assert any("submit.sh" in command for command in ran), "the guide submits nothing to Slurm"
    grade_job, merge_job = (large / "slurm" / "jobs").read_text().split()
    logs = large / "slurm" / "logs"
    shown = "\n".join(f"--- {log.name}\n{log.read_text()[-2000:]}" for log in sorted(logs.glob("*.log")))
    assert job_state(merge_job) == "COMPLETED", f"merge job {merge_job}: {job_state(merge_job)}\n{shown}"
    shards = [records(large / "slurm" / "runs" / f"shard-{i}") for i in range(SHARDS)]
    assert sum(len(shard) for shard in shards) == 3, f"each student graded by exactly one array task:\n{shown}"
    whole = records(large / "whole")
    assert sorted(whole) == ["1001", "1002", "1003"], sorted(whole)
    assert records(large / "slurm" / "merged") == whole, "Slurm's merged shards differ from the unsharded grading"
    assert records(large / "merged") == whole, "the shards merged by hand differ from the unsharded grading"
    assert (large / "slurm" / "merged" / "exports").is_dir(), "the merge job writes the exports"
    for manifest in sorted((large / "k8s").glob("*.yaml")):
        body = yaml.safe_load(manifest.read_text())
        for release in RELEASES:
            assert problems(release, body) == [], f"{manifest.name} is not valid for Kubernetes {release}"
