"""Benchmark the standalone grader: seconds per submission per core on a class, and the memory and time
of one graded submission (kernel and grader together), for each assignment.

    .venv/bin/python benchmarks/grade_class.py                       # every assignment, class of 8, 2 workers
    .venv/bin/python benchmarks/grade_class.py --assignment transfer_lm --students 20 --workers 1 2
    .venv/bin/python benchmarks/grade_class.py --cpu-quota 0.5 --memory-limit 768 --cold-cache   # as on Gradescope
    nice -n 10 .venv/bin/python benchmarks/grade_class.py --assignment rnn_attention --students 8 64 256 \
        --workers 2 1 --kinds demo --classes-only --json benchmarks/results/grade_class_sizes.json     # how cost grows

With several ``--students``, each class size is graded with each ``--workers``, smallest class first (the
largest class with the fewest workers last, so that a run cut short still holds every other figure);
``--skip SIZE:WORKERS`` leaves one combination out. Every class row records the load average just before and
just after it, and ``--json`` is rewritten after every row.

**Class**: the reference plus mutants (one known mistake each), cycled to ``--students``, graded by
``batch.grade_batch`` (one fresh grader process per submission, ``--workers`` at a time) in a child
process. Seconds per submission per core = wall seconds x cores used / submissions, where cores used =
min(workers, CPUs). Target: <= 5 s with 2 workers on 2 cores. Grading is CPU-bound, so on an idle machine
with as many workers as cores that figure tends to the CPU seconds per submission (the class's cgroup's
CPU time over its size), which is printed too: on a shared machine the wall figure grows with the load.

**One submission**: the reference notebook graded by ``one_submission.py``, started as Gradescope's
``run_autograder`` starts its grader (``warm_kernels.runner_command``: one process grades one upload, its
kernel forked from a zygote that process forked after importing torch). Its memory is the peak
of the whole group of processes, grader and kernel tree together, sampled from /proc every 0.25 s with
every resident page counted once (``tree_memory.py``: anonymous memory plus each mapped file once; also
summed PSS and RSS), and the cgroup's own peak. A cgroup is charged for a page of a file by whichever
group read it first, so its peak misses libraries already in the page cache, and counts every file the
grading read, mapped or not; ``--cold-cache`` first drops this Python environment's files from the page
cache (those no running process maps), so that the group pays for its libraries as a fresh container
does. Target: <= 768 MB.

``--cpu-quota 0.5`` grades only that one submission, in a cgroup whose CPU quota is half a CPU (the CFS
bandwidth limit Docker sets for ``--cpus 0.5``; ``assignments/platforms/container_limits.py`` says how on cgroup v1 and v2), with the
sandbox's namespaces switched off as Docker refuses them on Gradescope, and reports whether it stays under
Gradescope's default timeout. ``--memory-limit MB`` also caps the group's memory, so that an
out-of-memory kill shows as one.

Cgroups need root on Linux; elsewhere the class runs without CPU accounting and the one submission is
sampled from /proc only (``--cpu-quota`` and ``--memory-limit`` then stop with the reason).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

# Nothing here imports torch: this process must not map the libraries whose pages the measured group
# should be charged for (see --cold-cache). The class's modules are imported by the child that grades it.
import nbformat  # noqa: E402
import tree_memory  # noqa: E402

from assignments.course import default, resolve  # noqa: E402
from assignments.grading.environment import GRADING_ENV  # noqa: E402
from assignments.platforms import container_limits  # noqa: E402
from assignments.platforms.gradescope.bundle import grader_start  # noqa: E402

TARGET_PER_CORE_S = 5.0
TARGET_MB = 768
# Gradescope's default overall timeout for one submission: 10 minutes, at most 40
# (https://gradescope-autograders.readthedocs.io/en/latest/troubleshooting/, "Your submission timed out").
GRADESCOPE_TIMEOUT_S = 600
MB = 2**20


# ------------------------------------------------------------------------------------------ a class
def synthetic_class(assignment: str, size: int, folder: Path, kinds: str = "mutants") -> None:
    """Write ``size`` notebooks into ``folder``, named ``student<i>-<variant>.ipynb``, cycling through
    ``kinds``: ``mutants``, the reference and every mutant in turn; ``demo``, the demo class's kinds of
    student (``assignments.demo.students.demo_class``: the reference run on Colab, a blank upload, the
    reference pasted into a fresh Colab notebook, three with one mistake each, a shortcut)."""
    from assignments.demo import students as demo_class
    from assignments.grading.selftest import mutation

    hw = resolve(assignment)
    if kinds == "demo":
        notebooks = list(demo_class.demo_class(hw, buggy=3).items())
    else:
        variants = [("reference", {})] + [(m.name, {m.replaces: m.code}) for m in mutation.mutants(hw)]
        notebooks = [(name, demo_class.filled_release(hw, changes)) for name, changes in variants]
    texts = [(name, nbformat.writes(nb)) for name, nb in notebooks]
    for i in range(size):
        name, text = texts[i % len(texts)]
        (folder / f"student{i:03d}-{name}.ipynb").write_text(text)


def grade_a_class(assignment: str, workers: int, folder: Path) -> dict:
    """Runs in the child process: grade the class written in ``folder``, return wall time and the median
    submission's timings. It imports what ``course grade``'s supervising process imports (``batch``, not
    torch), so that the class's memory is what grading a real class holds."""
    from assignments.grading.doors import batch

    jobs = [batch.Job(path.stem.partition("-")[0], str(path)) for path in sorted(folder.glob("*.ipynb"))]
    began = time.perf_counter()
    results = batch.grade_batch(resolve(assignment), jobs, folder.parent / "out", workers, progress=False)
    wall = time.perf_counter() - began
    keys = ("total_s", "kernel_start_s", "execute_s", "tests_s", "grader_cpu_s")
    return {
        "wall_s": round(wall, 1),
        "points": [r.autograded_points for r in results],
        "cores": min(workers, batch.default_workers()),
        "median_s": {key: round(statistics.median(r.timings.get(key, 0.0) for r in results), 2) for key in keys},
    }


def measure_class(assignment: str, students: int, workers: int, folder: Path, kinds: str = "mutants") -> dict:
    """The class graded in a child process, in a cgroup (no limits) when possible to count its CPU time."""
    load_before = os.getloadavg()
    # Written by a process of its own: building the class imports torch (the mutants' module), which neither
    # this process (see --cold-cache) nor a real class's supervising process imports; in the measured child it
    # would add about 170 MB to the class's memory.
    submissions = folder / "submissions"
    submissions.mkdir(parents=True)
    subprocess.run(
        [
            sys.executable,
            __file__,
            "--write-class",
            str(submissions),
            "--assignment",
            assignment,
            "--students",
            str(students),
            "--kinds",
            kinds,
        ],
        check=True,
    )
    out_json = folder / "class.json"
    argv = [
        sys.executable,
        __file__,
        "--grade-class",
        str(submissions),
        str(out_json),
        "--assignment",
        assignment,
        "--workers",
        str(workers),
    ]
    env = {**os.environ, **GRADING_ENV}
    why_no_cgroup = container_limits.unavailable()
    cpu_seconds = None
    # Memory of the whole class at once (fork server, zygote, grader processes, kernels), sampled once a
    # second to keep the sampler's own CPU small. Summed PSS, not "unique": the kernels are forks of the
    # zygote and share its anonymous pages, which PSS splits between them and unique would count per process.
    if why_no_cgroup:
        process = subprocess.Popen(argv, env=env)
        with tree_memory.Sampler(tree_memory.descendants(process.pid), interval=1.0) as sampler:
            process.wait()
    else:
        with container_limits.Cgroup() as group:
            with tree_memory.Sampler(group.pids, interval=1.0) as sampler:
                group.popen(argv, env=env).wait()
            cpu_seconds = group.cpu_seconds()
    row = json.loads(out_json.read_text())
    row["class_pss_peak_mb"] = round(sampler.peak["pss"] / MB)
    row["pss_per_worker_mb"] = round(sampler.peak["pss"] / MB / min(workers, students))
    row.update(
        assignment=assignment,
        students=students,
        kinds=kinds,
        workers=workers,
        per_submission_per_core_s=round(row["wall_s"] * row["cores"] / students, 2),
        cpu_per_submission_s=round(cpu_seconds / students, 2) if cpu_seconds else None,
        cpu_accounting=why_no_cgroup or "the class's cgroup",
        load_before=[round(x, 2) for x in load_before],
        load_after=[round(x, 2) for x in os.getloadavg()],
    )
    return row


def report_class(row: dict) -> str:
    ok = "meets" if row["per_submission_per_core_s"] <= TARGET_PER_CORE_S else "misses"
    m = row["median_s"]
    cpu = (
        f"{row['cpu_per_submission_s']} s of CPU per submission, everything included"
        if row["cpu_per_submission_s"] is not None
        else f"no CPU accounting ({row['cpu_accounting']})"
    )
    return (
        f"{row['assignment']}: {row['students']} submissions, {row['workers']} worker(s) on {row['cores']} "
        f"core(s): {row['wall_s']} s wall, {row['per_submission_per_core_s']} s per submission per core "
        f"({ok} the {TARGET_PER_CORE_S:g} s target); {cpu}\n"
        f"    median submission: {m['total_s']} s wall in its grader process (kernel start "
        f"{m['kernel_start_s']} s, notebook cells {m['execute_s'] - m['kernel_start_s']:.2f} s, hidden tests "
        f"{m['tests_s']} s), grader process CPU {m['grader_cpu_s']} s\n"
        f"    memory: {row['class_pss_peak_mb']} MB at the peak for the whole class (summed PSS), "
        f"{row['pss_per_worker_mb']} MB per submission being graded "
        f"({'meets' if row['pss_per_worker_mb'] <= TARGET_MB else 'misses'} the {TARGET_MB} MB target)"
    )


# ------------------------------------------------------------------------------------------ one submission
def gradescope_tree(assignment: str, folder: Path) -> None:
    """A Gradescope-shaped folder holding the reference notebook as the upload."""
    (folder / "submission").mkdir(parents=True)
    (folder / "results").mkdir()
    (folder / "submission" / f"{assignment}.ipynb").write_text(nbformat.writes(resolve(assignment).source_notebook()))
    (folder / "submission_metadata.json").write_text(json.dumps({"users": [{"email": "reference@example.edu"}]}))


def evict_from_page_cache(root: Path) -> int:
    """Drop the cached pages of every file under ``root`` (pages some process maps stay); files done."""
    done = 0
    for folder, _, names in os.walk(root):
        for name in names:
            try:
                fd = os.open(os.path.join(folder, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                done += 1
            except OSError:
                pass
            finally:
                os.close(fd)
    return done


def measure_one(
    assignment: str,
    folder: Path,
    cpu: float | None = None,
    memory_mb: int | None = None,
    no_namespaces: bool = False,
    cold_cache: bool = False,
) -> dict:
    """The reference graded by one_submission.py in a child process (in a cgroup when possible)."""
    gradescope_tree(assignment, folder)
    record = folder / "record.json"
    # Started as run_autograder starts the grader: its kernel forked from a zygote that shares its pages.
    command, start = grader_start(resolve(assignment), sys.executable)
    argv = command + ["--script", str(HERE / "one_submission.py"), assignment, str(folder), str(record)]
    argv += ["--no-namespaces"] if no_namespaces else []
    env = {**os.environ, **GRADING_ENV, **start}
    why_no_cgroup = container_limits.unavailable()
    if why_no_cgroup and (cpu or memory_mb):
        raise SystemExit(f"--cpu-quota and --memory-limit need a cgroup: {why_no_cgroup}")
    row = {"assignment": assignment, "namespaces": not no_namespaces, "memory_limit_mb": memory_mb}
    if cold_cache:
        row["evicted_files"] = evict_from_page_cache(Path(sys.prefix))
    began = time.perf_counter()
    if why_no_cgroup:
        row["limits"] = f"no cgroup ({why_no_cgroup})"
        process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        with tree_memory.Sampler(tree_memory.descendants(process.pid)) as sampler:
            log, _ = process.communicate()
    else:
        with container_limits.Cgroup(cpu=cpu, memory_mb=memory_mb) as group:
            row["limits"] = group.describe()
            process = group.popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            with tree_memory.Sampler(group.pids) as sampler:
                log, _ = process.communicate()
            row.update(
                cgroup_peak_mb=round(group.peak_bytes() / MB),
                oom_kills=group.oom_kills(),
                cpu_s=round(group.cpu_seconds(), 1),
                periods=group.throttling(),
            )
    row["wall_s"] = round(time.perf_counter() - began, 1)
    row.update({f"{key}_peak_mb": round(value / MB) for key, value in sampler.peak.items()})
    row["exit_code"] = process.returncode
    results = folder / "results" / "results.json"
    if results.is_file():
        data = json.loads(results.read_text())
        row["score"] = f"{data['score']:g} / {data['extra_data'].get('autograded_max', 0):g}"
    if record.is_file():
        row["timings"] = json.loads(record.read_text()).get("timings", {})
    if process.returncode != 0 or "score" not in row or "kernel_start_s" not in row.get("timings", {}):
        row["log_tail"] = log.decode("utf-8", "replace")[-2000:]
    return row


def report_one(row: dict) -> str:
    # What the processes hold resident at the peak, every page once (tree_memory's "unique"). The cgroup's
    # peak is printed beside it, not compared: it swings with what was cached before (see --cold-cache)
    # and counts files read once and never mapped, which a limit reclaims first.
    peak = row["unique_peak_mb"]
    ok = "meets" if peak <= TARGET_MB else "misses"
    verdict = f"{peak} MB at the peak ({ok} the {TARGET_MB} MB target)"
    if row.get("memory_limit_mb"):  # the limit holds the peaks down: the score, time and OOM kills tell
        verdict = (
            f"held to the {row['memory_limit_mb']} MB limit (whether it fits shows in the score, the time "
            f"and the OOM kills; run without a limit to measure the need)"
        )
    t = row.get("timings") or {}
    lines = [
        f"{row['assignment']}: one submission ({row['limits']}; sandbox namespaces "
        f"{'on' if row['namespaces'] else 'off, as on Gradescope'}"
        f"{'; libraries evicted from the page cache first' if 'evicted_files' in row else ''}): "
        f"score {row.get('score', 'none')}, {row['wall_s']} s wall"
    ]
    if t.get("kernel_start_s") is not None:  # absent where nothing was graded (the log says why)
        lines.append(
            f"    grader start and imports {t['grader_start_s']} s, kernel start {t['kernel_start_s']} s, "
            f"notebook cells {t['execute_s'] - t['kernel_start_s']:.2f} s, hidden tests {t['tests_s']} s"
        )
    if row.get("cpu_s") is not None:
        grader = t.get("grader_cpu_s", 0.0)
        periods, throttled = row["periods"]
        lines.append(
            f"    CPU {row['cpu_s']} s (grader process {grader} s, kernel tree {row['cpu_s'] - grader:.1f} s)"
            + (f"; out of quota in {throttled} of {periods} 100 ms periods" if periods else "")
        )
    lines.append(
        f"    memory: {verdict}: every page counted once "
        f"{row['unique_peak_mb']} MB, of which anonymous {row['anonymous_peak_mb']} MB; "
        + (f"cgroup peak {row['cgroup_peak_mb']} MB; " if "cgroup_peak_mb" in row else "")
        + f"summed PSS {row['pss_peak_mb']} MB, summed RSS {row['rss_peak_mb']} MB"
    )
    if row.get("oom_kills"):
        lines.append(f"    the OOM killer ended {row['oom_kills']} process(es) of this grading")
    if "log_tail" in row:
        lines.append(f"    exit code {row['exit_code']}; output:\n{row['log_tail']}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ main
def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assignment", nargs="+", default=default().present())
    parser.add_argument("--students", type=int, nargs="+", default=[8])
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument(
        "--cpu-quota",
        type=float,
        default=None,
        help="grade one submission at this many CPUs (e.g. 0.5, Gradescope's default)",
    )
    parser.add_argument(
        "--memory-limit",
        type=int,
        default=None,
        metavar="MB",
        help="cap the one submission's memory (e.g. 768, Gradescope's default)",
    )
    parser.add_argument(
        "--cold-cache",
        action="store_true",
        help="before grading the one submission, drop this Python environment's files from the "
        "page cache, so that its cgroup is charged for every library page it maps, as a "
        "fresh container is",
    )
    parser.add_argument(
        "--kinds",
        choices=("mutants", "demo"),
        default="mutants",
        help="the class's students: the reference and every mutant, or the demo class's kinds",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write every figure to this file")
    parser.add_argument("--classes-only", action="store_true", help="grade the classes only, not the one submission")
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        metavar="SIZE:WORKERS",
        help="class sizes and worker counts not to measure (e.g. 256:1, when it would take too long)",
    )
    # the children's parts: write the class, grade it
    parser.add_argument("--write-class", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--grade-class", type=Path, nargs=2, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.write_class:
        synthetic_class(args.assignment[0], args.students[0], args.write_class, args.kinds)
        return 0
    work = Path(tempfile.mkdtemp(prefix="grading-benchmark-"))
    os.chmod(work, 0o711)  # a sandboxed kernel running as its own uid must reach its scratch below
    try:
        if args.grade_class:
            submissions, out_json = args.grade_class
            row = grade_a_class(args.assignment[0], args.workers[0], submissions)
            out_json.write_text(json.dumps(row))
            return 0
        print(f"machine: {os.cpu_count()} CPUs, load average {load()}", flush=True)
        figures = []

        def keep(row: dict) -> None:
            figures.append(row)
            if args.json:
                args.json.write_text(json.dumps(figures, indent=2) + "\n")

        skip = set(args.skip)
        for assignment in args.assignment:
            if args.cpu_quota is None:
                for students in sorted(args.students):
                    for workers in sorted(args.workers, reverse=True):
                        if f"{students}:{workers}" in skip:
                            print(f"{assignment}: {students} submissions, {workers} worker(s): skipped", flush=True)
                            continue
                        folder = work / f"{assignment}-class-{students}-{workers}"
                        row = measure_class(assignment, students, workers, folder, args.kinds)
                        shutil.rmtree(folder, ignore_errors=True)
                        keep(row)
                        print(report_class(row), flush=True)
            if args.classes_only:
                continue
            row = measure_one(
                assignment,
                work / f"{assignment}-one",
                args.cpu_quota,
                args.memory_limit,
                no_namespaces=args.cpu_quota is not None,
                cold_cache=args.cold_cache,
            )
            keep(row)
            print(report_one(row), flush=True)
            if args.cpu_quota is not None:
                verdict = "stays under" if row["wall_s"] < GRADESCOPE_TIMEOUT_S else "does NOT stay under"
                print(
                    f"    at {args.cpu_quota:g} CPU it {verdict} Gradescope's default {GRADESCOPE_TIMEOUT_S} s "
                    f"timeout ({row['wall_s'] / GRADESCOPE_TIMEOUT_S:.0%} of it)",
                    flush=True,
                )
        print(f"load average at the end: {load()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
