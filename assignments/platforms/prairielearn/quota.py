"""One PrairieLearn job graded as PrairieLearn's grading host runs it, to try a question before students do
(``course prairielearn <assignment> --job DIR --quota``): the entry point inside a control group with the
host's CPU quota and memory limit (``question.CPUS`` and ``MEMORY_MB``, the limits Docker sets
for ``--cpus 0.9 --memory 2g``), without a cgroup of the sandbox's own below it (a container's cgroup file
system is read-only), then the wall time against the question's timeout. Linux and root only."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from assignments.grading.sandbox.cgroups import NO_CGROUP_ENV
from assignments.platforms import container_limits
from assignments.platforms.prairielearn import question as prairielearn_question


def unavailable() -> str | None:
    """Why a job cannot be run under the quota here, or None."""
    return container_limits.unavailable()


def grade_under_quota(assignment: str, job: Path, log=print) -> int:
    """Grade the job in ``job`` under PrairieLearn's limits, its output passed through; then one line on the
    wall time against the timeout. The exit status is the entry point's, or 1 when it ran past the timeout
    (PrairieLearn would have killed it and recorded nothing)."""
    timeout = prairielearn_question.job_timeout()
    argv = [sys.executable, "-m", "assignments", "prairielearn", assignment, "--job", str(job)]
    env = {**os.environ, NO_CGROUP_ENV: "1"}
    limits = dict(cpu=prairielearn_question.CPUS, memory_mb=prairielearn_question.MEMORY_MB, name="course-pl-job")
    with container_limits.Cgroup(**limits) as group:
        began = time.monotonic()
        process = group.popen(argv, env=env)
        try:
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            group.kill()
            process.wait()
            status = None
        wall, cpu = time.monotonic() - began, group.cpu_seconds()
    where = f"under PrairieLearn's limits ({prairielearn_question.CPUS:g} CPU, {prairielearn_question.MEMORY_MB} MB)"
    if status is None:
        log(
            f"{where}: still running at the question's {timeout} s timeout; PrairieLearn would kill the job and record no score"
        )
        return 1
    results = Path(job) / "results" / "results.json"
    said = f"results in {results}" if results.is_file() else "no results.json"
    log(f"{where}: done in {wall:.0f} s of the question's {timeout} s timeout, {cpu:.0f} s of CPU time; {said}")
    return status
