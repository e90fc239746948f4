"""Does a grading host with a GPU give the same scores? (issue #10, item 4)

The contracts of ``train_epoch``, ``evaluate`` and ``predict_sentiment`` (and their kin in the other
notebooks) move tensors to the notebook's ``DEVICE``, which is CUDA wherever a GPU is visible, while the
hidden tests build their models on the CPU. Grading therefore hides every accelerator from the student's
kernel (``assignments/grading/environment.py``), in both doors. This benchmark grades the demo class of
every assignment and writes every student's points per question to JSON, so that a CPU host's run and a
GPU host's run can be compared question by question:

    .venv/bin/python benchmarks/gpu_grading.py --label cpu --json cpu.json                 # standalone door
    .venv/bin/python benchmarks/gpu_grading.py --door both --json h100.json                # + nbgrader door
    .venv/bin/python benchmarks/gpu_grading.py --accelerators visible --json control.json  # the control
    .venv/bin/python benchmarks/gpu_grading.py --compare cpu.json h100.json               # the differences

The class is ``course demo``'s (``demo_class.demo_class``: the reference, the blank release, ``--buggy``
students with one known mistake each, a shortcut student, the reference pasted into a fresh Colab
notebook) plus one hostile student whose first answer cell ends its kernel with ``os._exit``
(``tests/fixtures/hostile/os_exit.py``). Students are graded as files named after them (no LMS
intake: the Canvas file names add nothing to this question).

``--accelerators visible`` is the control, and exists for this benchmark alone: its grader processes
take the accelerator variables out of their copy of ``GRADING_ENV`` before grading (nothing in the
grading code knows about it, and the default is untouched), so the student's kernel sees the GPU as a
grading host without the hiding would. The sandbox builds the kernel's environment from scratch, so the
control also passes the host's ``LD_LIBRARY_PATH`` through (where the host's CUDA driver may live; on most
hosts it is in the linker's default path anyway). ``--probe`` (on by default) first asks a sandboxed
kernel, in each setting, what torch sees, so the JSON records that the hiding held (and that the control
really had a GPU). The nbgrader door has no control here: its kernels inherit the environment
``nbgrader_config.py`` sets.

``--compare A B`` prints one row per (assignment, door, student, question) whose points differ, with the
first failed test's message on the side that lost points, and a per-assignment summary; the exit status
is 0 when every common question scored the same, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))  # so grader processes can import this module (``grade_accelerators_visible``)

# What the control takes out of GRADING_ENV: everything that hides an accelerator from the kernel.
ACCELERATOR_VARIABLES = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "PYTORCH_MPS_DISABLE")
MESSAGE_CHARS = 240


# ------------------------------------------------------------------------------------------ the control
@contextlib.contextmanager
def accelerators_visible(ld_library_path: bool = True):
    """This process's ``GRADING_ENV`` without the accelerator variables (and with the host's
    ``LD_LIBRARY_PATH``) for the duration; the benchmark's control only."""
    from assignments.grading.environment import GRADING_ENV

    saved = dict(GRADING_ENV)
    for key in ACCELERATOR_VARIABLES:
        GRADING_ENV.pop(key, None)
    if ld_library_path and os.environ.get("LD_LIBRARY_PATH"):
        GRADING_ENV["LD_LIBRARY_PATH"] = os.environ["LD_LIBRARY_PATH"]
    try:
        yield
    finally:
        GRADING_ENV.clear()
        GRADING_ENV.update(saved)


def grade_accelerators_visible(assignment, job, skip_tests=(), test_log=None):
    """A grader for ``batch.grade_batch``: ``batch.grade_one`` with the accelerators visible to the
    student's kernel (runs in a grader process of its own, so the change dies with it)."""
    from assignments.grading.doors.batch import grade_one

    with accelerators_visible():
        return grade_one(assignment, job, skip_tests=skip_tests, test_log=test_log)


# ------------------------------------------------------------------------------------------ the host
def host_facts() -> dict:
    """Machine and versions, asked of a child so this process never initialises CUDA."""
    code = (
        "import json, torch, transformers, sys\n"
        "cuda = torch.cuda.is_available()\n"
        "print(json.dumps({'python': sys.version.split()[0], 'torch': torch.__version__,\n"
        "  'torch_cuda': torch.version.cuda, 'transformers': transformers.__version__,\n"
        "  'grader_process_sees_cuda': cuda,\n"
        "  'gpus': [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] if cuda else []}))"
    )
    facts = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "cpu_model": _cpu_model(),
        "grader_code": str(Path(__import__("assignments").__file__).parent),
        "when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    try:
        facts.update(
            json.loads(
                subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
                .stdout.strip()
                .splitlines()[-1]
            )
        )
    except (IndexError, ValueError, subprocess.SubprocessError) as error:
        facts["versions_error"] = repr(error)
    if shutil.which("nvidia-smi"):
        query = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
        )
        facts["nvidia_smi"] = query.stdout.strip()
    for name in ("nbgrader", "ipykernel", "jupyter_client", "datasets", "nbclient"):
        try:
            from importlib.metadata import version

            facts[name] = version(name)
        except Exception:  # noqa: BLE001 - absent is a fact too
            facts[name] = None
    return facts


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


PROBE = """import json, os
import torch
facts = {"CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES"),
         "LD_LIBRARY_PATH": os.environ.get("LD_LIBRARY_PATH"), "cuda_available": torch.cuda.is_available(),
         "device_count": torch.cuda.device_count()}
if facts["cuda_available"]:
    facts["device_name"] = torch.cuda.get_device_name(0)
    facts["cuda_sum"] = torch.ones(4, device="cuda").sum().item()
print("PROBE " + json.dumps(facts))
"""


def probe_kernel() -> dict:
    """What torch sees in a sandboxed kernel started with this process's current ``GRADING_ENV``."""
    from assignments.grading.sandbox.session import Sandbox

    try:
        with Sandbox(b"{}", "probe.ipynb") as sandbox:
            sandbox.execute_cells([("probe", PROBE)])
            output = sandbox.cell_outputs[0][1] if sandbox.cell_outputs else ""
            findings = [f"{f.code}: {f.message}" for f in sandbox.findings]
    except Exception as error:  # noqa: BLE001 - a failed probe is a result to report
        return {"error": repr(error)}
    for line in output.splitlines():
        if line.startswith("PROBE "):
            return json.loads(line[len("PROBE ") :])
    return {"error": "no probe line", "output": output[-2000:], "findings": findings}


def probe_all() -> dict:
    seen = {"hidden (GRADING_ENV as it is)": probe_kernel()}
    with accelerators_visible():
        seen["visible (the control)"] = probe_kernel()
    with accelerators_visible(ld_library_path=False):
        seen["visible, no LD_LIBRARY_PATH passed"] = probe_kernel()
    return seen


# ------------------------------------------------------------------------------------------ the class
def demo_students(assignment: str, buggy: int) -> dict:
    """``course demo``'s class of ``assignment`` plus a hostile student; ``{student: notebook}``."""
    from assignments.course import REPO as GRADER_REPO
    from assignments.course import default
    from assignments.demo import students as demo_class
    from tests.fixtures import payloads

    hw = default().assignment(assignment)
    students = demo_class.demo_class(hw, buggy)
    hostile = payloads.by_name("os_exit")
    students[f"hostile-{hostile.name}"] = payloads.inject(demo_class.filled_release(hw), hostile, GRADER_REPO)
    return students


def record(result) -> dict:
    """One student's entry: points per question (None: graded by hand), totals, findings, lost tests."""
    lost = {}
    for question in result.questions:
        for test in question.tests:
            if test.outcome != "passed":
                lost.setdefault(question.grade_id, []).append(f"{test.name}: {test.message}"[:MESSAGE_CHARS])
    return {
        "status": result.status,
        "points": round(result.autograded_points, 4),
        "max": result.autograded_max,
        "questions": {q.grade_id: q.points for q in result.questions},
        "question_max": {q.grade_id: q.max_points for q in result.questions},
        "findings": sorted({f.code for f in result.findings}),
        "lost": lost,
        "seconds": result.timings.get("total_s"),
    }


def grade_standalone(assignment: str, students: dict, work: Path, workers: int, visible: bool) -> dict:
    import nbformat

    from assignments.course import default
    from assignments.grading.doors import batch

    folder, out = work / assignment / "submissions", work / assignment / "standalone"
    name = default().assignment(assignment).source_path.name
    jobs = []
    for student, nb in sorted(students.items()):
        path = folder / student / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(nbformat.writes(nb))
        jobs.append(batch.Job(student, str(path), hide=(str(folder.resolve()), str(work.resolve()))))
    grader = batch.grade_one
    if visible:
        import gpu_grading  # this file as a module: a grader process imports it by that name

        grader = gpu_grading.grade_accelerators_visible
    started = time.perf_counter()
    results = batch.grade_batch(
        default().assignment(assignment), jobs, out, workers=workers, progress=False, grader=grader
    )
    wall = time.perf_counter() - started
    return _door_entry({r.student: record(r) for r in results}, wall, workers)


def grade_nbgrader(assignment: str, students: dict, work: Path) -> dict:
    """The nbgrader door, as ``course demo`` runs it (repaired copies, one student at a time)."""
    import nbformat

    from assignments.course import default
    from assignments.grading.doors.nbgrader import door as nbgrader_door
    from assignments.runs.folder import Run

    folder, paths = work / assignment / "submissions", {}
    name = default().assignment(assignment).source_path.name
    for student, nb in sorted(students.items()):
        path = folder / student / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(nbformat.writes(nb))
        paths[student] = path
    started = time.perf_counter()
    results = nbgrader_door.autograde_repaired(
        default().assignment(assignment), paths, Run(work / assignment / "nbgrader"), progress=False
    )
    wall = time.perf_counter() - started
    return _door_entry({r.student: record(r) for r in results}, wall, 1)


def _door_entry(students: dict, wall: float, workers: int) -> dict:
    seconds = [s["seconds"] for s in students.values() if s.get("seconds") is not None]
    return {
        "wall_s": round(wall, 1),
        "workers": workers,
        "submissions": len(students),
        "median_submission_s": round(statistics.median(seconds), 2) if seconds else None,
        "max_submission_s": round(max(seconds), 2) if seconds else None,
        "students": students,
    }


def run(args) -> dict:
    from assignments.course import default

    assignments = args.assignments or default().present()
    visible = args.accelerators == "visible"
    doors = ["standalone", "nbgrader"] if args.door == "both" else [args.door]
    if visible and "nbgrader" in doors:
        raise SystemExit("--accelerators visible is the standalone door's control only")
    report = {
        "label": args.label or ("accelerators-visible" if visible else "accelerators-hidden"),
        "accelerators": args.accelerators,
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "host": host_facts(),
        "assignments": {},
    }
    print(json.dumps(report["host"], indent=1), flush=True)
    if args.probe:
        report["kernel_sees"] = probe_all()
        print("a sandboxed kernel sees:\n" + json.dumps(report["kernel_sees"], indent=1), flush=True)
    work = Path(tempfile.mkdtemp(prefix="gpu-grading-"))
    os.chmod(work, 0o711)
    classes = {a: demo_students(a, args.buggy) for a in assignments}
    try:
        if "standalone" in doors:
            for assignment in assignments:
                entry = grade_standalone(assignment, classes[assignment], work, args.workers, visible)
                report["assignments"].setdefault(assignment, {})["standalone"] = entry
                print(summary(assignment, "standalone", entry), flush=True)
                _save(report, args.json)
        if "nbgrader" in doors:
            # One course folder per assignment: the three run side by side, each one student at a time.
            with ThreadPoolExecutor(max_workers=min(len(assignments), args.nbgrader_parallel)) as pool:
                futures = {a: pool.submit(grade_nbgrader, a, classes[a], work) for a in assignments}
                for assignment, future in futures.items():
                    entry = future.result()
                    report["assignments"].setdefault(assignment, {})["nbgrader"] = entry
                    print(summary(assignment, "nbgrader", entry), flush=True)
            _save(report, args.json)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work folder kept: {work}")
    return report


def _save(report: dict, path) -> None:
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")


def summary(assignment: str, door: str, entry: dict) -> str:
    lines = [
        f"\n{assignment}, {door} door: {entry['submissions']} submissions in {entry['wall_s']} s "
        f"({entry['workers']} at a time), median {entry['median_submission_s']} s each"
    ]
    for student, s in sorted(entry["students"].items()):
        lost = ", ".join(f"{q} -{len(tests)} test(s)" for q, tests in s["lost"].items())
        lines.append(f"  {student:42} {s['points']:g}/{s['max']:g}  {s['seconds']} s  {lost}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ compare
def differences(first: dict, second: dict) -> tuple[list[dict], list[dict]]:
    """Rows where two runs' points differ, and one summary per (assignment, door) both runs graded.

    A row: assignment, door, student, question, the two points (None for a question only one run has, or
    a student one run lacks: then question is ``*``), its maximum and the first lost test's message on
    the side that scored less."""
    rows, summaries = [], []
    for assignment in sorted(set(first["assignments"]) | set(second["assignments"])):
        doors_a, doors_b = first["assignments"].get(assignment, {}), second["assignments"].get(assignment, {})
        for door in sorted(set(doors_a) & set(doors_b)):
            a, b = doors_a[door]["students"], doors_b[door]["students"]
            changed = set()
            for student in sorted(set(a) | set(b)):
                if student not in a or student not in b:
                    rows.append(
                        {
                            "assignment": assignment,
                            "door": door,
                            "student": student,
                            "question": "*",
                            "a": a[student]["points"] if student in a else None,
                            "b": b[student]["points"] if student in b else None,
                            "max": None,
                            "why": "graded in one run only",
                        }
                    )
                    changed.add(student)
                    continue
                qa, qb = a[student]["questions"], b[student]["questions"]
                for question in sorted(set(qa) | set(qb)):
                    pa, pb = qa.get(question), qb.get(question)
                    if pa == pb:
                        continue
                    loser = a[student] if (pa or 0) < (pb or 0) else b[student]
                    why = (loser["lost"].get(question) or [""])[0]
                    rows.append(
                        {
                            "assignment": assignment,
                            "door": door,
                            "student": student,
                            "question": question,
                            "a": pa,
                            "b": pb,
                            "why": why,
                            "max": a[student].get("question_max", {}).get(question),
                        }
                    )
                    changed.add(student)
            summaries.append(
                {
                    "assignment": assignment,
                    "door": door,
                    "students": len(set(a) | set(b)),
                    "students_changed": len(changed),
                    "total_a": round(sum(s["points"] for s in a.values()), 4),
                    "total_b": round(sum(s["points"] for s in b.values()), 4),
                }
            )
    return rows, summaries


def compare_text(first: dict, second: dict, names=("A", "B")) -> tuple[str, bool]:
    from assignments.results.table import aligned

    rows, summaries = differences(first, second)
    label_a, label_b = first.get("label") or names[0], second.get("label") or names[1]
    out = [f"A = {label_a} ({_where(first)})", f"B = {label_b} ({_where(second)})", ""]
    out.append(
        aligned(
            ["assignment", "door", "students", "students with a difference", "total A", "total B"],
            [
                [
                    s["assignment"],
                    s["door"],
                    s["students"],
                    s["students_changed"],
                    f"{s['total_a']:g}",
                    f"{s['total_b']:g}",
                ]
                for s in summaries
            ],
        )
    )
    if rows:
        out.append("")
        out.append(
            aligned(
                ["assignment", "door", "student", "question", "A", "B", "of", "why (the side with fewer points)"],
                [
                    [
                        r["assignment"],
                        r["door"],
                        r["student"],
                        r["question"],
                        _points(r["a"]),
                        _points(r["b"]),
                        _points(r["max"]),
                        r["why"][:120],
                    ]
                    for r in rows
                ],
            )
        )
    else:
        out.append("\nsame points on every question of every student both runs graded")
    return "\n".join(out), not rows


def _points(value) -> str:
    return "-" if value is None else f"{value:g}"


def _where(report: dict) -> str:
    host = report.get("host", {})
    gpu = ", ".join(host.get("gpus") or []) or "no GPU"
    return f"{host.get('cpu_model', '?')}, {gpu}, accelerators {report.get('accelerators', '?')}"


# ------------------------------------------------------------------------------------------ main
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"), help="print the differences and stop")
    parser.add_argument("--assignments", nargs="*", help="default: every assignment")
    parser.add_argument("--door", choices=["standalone", "nbgrader", "both"], default="standalone")
    parser.add_argument(
        "--accelerators",
        choices=["hidden", "visible"],
        default="hidden",
        help="visible: this benchmark's control, the kernel sees the host's GPU (standalone door)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=max(1, min(8, (os.cpu_count() or 2) // 2)),
        help="standalone submissions at a time (default: half the CPUs, at most 8)",
    )
    parser.add_argument(
        "--nbgrader-parallel",
        type=int,
        default=3,
        help="assignments graded side by side through nbgrader (one student at a time each)",
    )
    parser.add_argument("--buggy", type=int, default=3, help="buggy students per assignment (as course demo)")
    parser.add_argument("--label", help="a name for this run, shown by --compare")
    parser.add_argument(
        "--no-probe", dest="probe", action="store_false", help="skip asking a sandboxed kernel what torch sees"
    )
    parser.add_argument("--keep", action="store_true", help="keep the work folder (submissions, records)")
    parser.add_argument("--json", help="where to write the points")
    args = parser.parse_args(argv)
    if args.compare:
        reports = [json.loads(Path(p).read_text()) for p in args.compare]
        text, same = compare_text(*reports, names=tuple(args.compare))
        print(text)
        return 0 if same else 1
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
