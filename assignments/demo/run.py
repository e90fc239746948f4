"""``course demo`` (``make demo``): release, then grade a demo class of every assignment through both doors
(the standalone door on the Canvas download, nbgrader on the same notebooks, the damaged one repaired
first), export everything, and say whether the doors agree on every question.

The demo's release executes the solutions but leaves out ``nbgrader validate`` (source: every test passes;
release: none passes): the demo's reference and blank students are those two notebooks graded through
both doors, nbgrader's included, and the demo fails unless the reference gets full marks and the blank
zero in each (``validation_problems``). ``course release`` still validates."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from assignments import intake
from assignments.course import default
from assignments.demo import BUGGY
from assignments.demo.students import DAMAGED, demo_class, write_canvas_zip
from assignments.grading.doors import batch
from assignments.runs.folder import Run
from assignments.workflow import export_all, grade_class


def demo(workers: int | None = None, skip_release: bool = False, buggy: int = BUGGY) -> int:
    """Release, then grade a demo class of every assignment through both doors and export everything."""
    from assignments import release

    started = time.perf_counter()
    if not skip_release:
        # Executing the solutions is deterministic, but other library versions give other numbers: where the
        # committed outputs were made with other versions than here, they are kept (the tree stays clean).
        committed = release.solution_notebooks(default())
        # The demo is the one release the shipped placeholder colab_url passes (its students are made up).
        outcome = release.release(demo=True, validate=False)
        if not outcome.ok:
            print("\n".join(outcome.problems) + "\nrelease refused; the demo stops here")
            return 1
        for note in release.keep_other_environments_outputs(committed):
            print(note)
    disagreements = side_by_side(default().present(), workers, buggy)
    print(f"\ndemo finished in {time.perf_counter() - started:.0f} s")
    return 1 if disagreements else 0


def side_by_side(assignments: list[str], workers: int | None = None, buggy: int = BUGGY) -> list[str]:
    """Every assignment's demo class at once where the machine has more than one core; returns the
    disagreements.

    ``nbgrader autograde`` grades one notebook at a time on one core (three quarters of the demo's time),
    and each assignment has its own run folder and nbgrader gradebook, so assignments graded at once share
    no file. All start together, even with fewer cores than assignments: two at a time left one core idle
    while the last assignment graded alone (on 2 cores, 459 s for the three against 340 s all at
    once; benchmarks/README.md). Each runs in its own process, printing into its own log; the logs are
    shown whole, in the assignments' order, so the tables never interleave."""
    from tqdm.auto import tqdm

    at_once = len(assignments) if batch.default_workers() > 1 else 1
    if at_once <= 1:
        return [line for assignment in assignments for line in demo_assignment(assignment, workers, buggy)]
    print(f"grading the demo classes of {', '.join(assignments)} at once ({batch.default_workers()} cores)")
    disagreements = []
    with (
        tempfile.TemporaryDirectory(prefix="demo-logs-") as logs,
        # spawn: a fresh interpreter per process, whatever this one has loaded or started.
        ProcessPoolExecutor(at_once, mp_context=multiprocessing.get_context("spawn")) as pool,
        tqdm(total=len(assignments), desc="demo classes graded", unit="assignment") as bar,
    ):
        logged = {name: Path(logs) / f"{name}.log" for name in assignments}
        running = {
            name: pool.submit(_demo_assignment_logged, name, workers, buggy, logged[name]) for name in assignments
        }
        for name in assignments:
            try:
                disagreements += running[name].result()
            finally:
                bar.write(final_lines(logged[name].read_text(encoding="utf-8", errors="replace")))
                bar.update(1)
    return disagreements


def _demo_assignment_logged(assignment: str, workers: int | None, buggy: int, log: Path) -> list[str]:
    """``demo_assignment`` in a process of ``side_by_side``, everything it and its children print going
    into ``log`` (file descriptors 1 and 2, so the nbgrader and grader processes' output goes there too)."""
    with open(log, "w", encoding="utf-8") as handle:
        os.dup2(handle.fileno(), 1)
        os.dup2(handle.fileno(), 2)
        try:
            return demo_assignment(assignment, workers, buggy)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()


def final_lines(log: str) -> str:
    """A log as a terminal would have left it: of each line a progress bar redrew (``\r``), its last state."""
    return "\n".join(line.rstrip("\r").split("\r")[-1] for line in log.rstrip("\n").split("\n"))


def demo_assignment(assignment: str, workers: int | None = None, buggy: int = BUGGY) -> list[str]:
    """One assignment's demo class through both doors, exported; returns the doors' disagreements and
    anything ``validation_problems`` finds. The demo's edge: the name is resolved here, once, in the process
    that grades it."""
    from assignments.grading.doors.nbgrader import door as nbgrader_door
    from assignments.grading.doors.nbgrader import repair
    from assignments.results import table

    hw = default().assignment(assignment)
    students = demo_class(hw, buggy)
    download = default().build_dir / "demo" / assignment / "canvas_download.zip"
    files = write_canvas_zip(hw, students, download)
    # The demo's own folder: its students never appear in a term's runs (grades/<term>/). Made afresh each
    # time: an earlier demo's students (another --buggy) would otherwise stay in its intake and nbgrader's.
    run = Run.demo(hw)
    shutil.rmtree(run.root, ignore_errors=True)
    standalone = grade_class(hw, download, run, workers)
    print(table.score_table(standalone, f"\n{assignment}: standalone grader"))
    # Canvas user ids key the records; say who is who (file name: login_userid_submissionid_name).
    print(
        "who is who: "
        + ", ".join(
            f"{name.split('_')[1]} = {student}"
            for student, name in sorted(files.items(), key=lambda kv: kv[1].split("_")[1])
        )
    )

    staged = {s.student: Path(s.path) for s in intake.IntakeResult.load(run.intake).submissions}
    # Every notebook goes through nbgrader, the damaged one (no nbgrader metadata) repaired first; the door
    # keeps its own records in its folder (run.nbgrader), its course folder is the run's.
    through_nbgrader = nbgrader_door.autograde_repaired(hw, staged, run.nbgrader_run)
    for result in through_nbgrader:
        batch.save(result, run.nbgrader_run)
    print(table.score_table(through_nbgrader, f"{assignment}: nbgrader autograde"))
    # The standalone records go into the same gradebook nbgrader just filled (formgrader, export).
    export_all(hw, run)
    if DAMAGED in files:
        print(
            f"{DAMAGED} ({files[DAMAGED].split('_')[1]}) has no nbgrader metadata: the "
            "standalone door recovered its cells by content and nbgrader graded a repaired copy (see the "
            f"cells-recovered findings and {run.repair / repair.REPORT})"
        )
    differences = table.compare_doors(standalone, through_nbgrader)
    print("both doors agree on every question" if not differences else "DOORS DISAGREE:\n  " + "\n  ".join(differences))
    ids = {student: name.split("_")[1] for student, name in files.items()}
    problems = validation_problems({"standalone": standalone, "nbgrader": through_nbgrader}, ids)
    print("\n".join(problems) or "the reference has full marks and the blank zero in both doors")
    print(f"grade files: {run.root}/ (results/, exports/, nbgrader/results/, nbgrader/repair/, intake.json)")
    return differences + problems


def validation_problems(by_door: dict[str, list], ids: dict[str, str]) -> list[str]:
    """What ``nbgrader validate`` checks in a release, read off the demo's records: in each door the
    reference (the release with the solutions typed in) gets every autograded point and the blank release
    none. ``ids``: the demo student's name to the key of their record."""
    problems = []
    for door, records in by_door.items():
        by_key = {record.student: record for record in records}
        for student, wanted in (("reference", "full marks"), ("blank", "zero")):
            record = by_key.get(ids.get(student, ""))
            if record is None:
                problems.append(f"{door}: no record of the {student} student")
                continue
            got, full = record.autograded_points, record.autograded_max
            if (got != full) if student == "reference" else (got != 0):
                problems.append(f"{door}: the {student} student got {got:g}/{full:g}, not {wanted}")
    return problems
