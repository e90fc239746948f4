"""Shards' runs merged into one run (``course merge``).

The shards' runs (``shards.py``) become one run folder laid out as a whole-class run (``results/``,
``intake.json``, ``submissions/``), from which the same exports are written. The merge checks what it merges
first and writes nothing when it refuses: every record belongs to its run's shard (``shard.json``) and to a
student the intake lists, every student the intake lists has a record (or ``--allow-missing`` says to go on
without them), and nothing is read through a link or a ``..``.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from assignments.escaping import one_line
from assignments.results.model import SubmissionResult
from assignments.runs import store
from assignments.runs.folder import SUBMISSIONS, Run, as_run
from assignments.runs.manifest import IntakeResult
from assignments.runs.shards import Shard, read_shard, shard_of, write_shard


class MergeRefused(Exception):
    """The runs cannot make one run; the message (one line) says which and why, and what to do."""


@dataclass
class _Taken:
    """A record a merge takes from a shard's run, and the notebook it copies (relative to both runs)."""

    record: SubmissionResult
    run: Path
    notebook: Path | None = None


def merge_runs(
    assignment: str, runs: list[Run | Path], out: Run | Path, allow_missing: bool = False
) -> list[SubmissionResult]:
    """Join the runs of a class's shards into the run folder ``out``: every record (its submission copied
    to ``out/submissions`` and the record pointed at the copy) and one intake manifest.

    Everything is checked before anything is written, and a refusal (``MergeRefused``) writes nothing:
    every run must say which shard it graded (``shard.json``), all of one split of the class; every record
    must belong to its run's shard (``shard_of``) and to a student the intake lists; two runs holding one
    student must hold the same record (a shard given twice, or retried, is fine); all must come from one
    grader; every student the intake lists must have a record, else the refusal names them and the shards
    to grade again (``allow_missing``: a warning names them instead, and they have no record in the merged
    run, as any student without one). A record file or a notebook reached through a link, a path with
    ``..``, or a notebook outside the run's ``submissions/`` is refused or not copied: a merge reads only
    the runs' own files and writes only inside ``out``. The order of ``runs`` changes nothing, and merging
    again gives the same run."""
    runs = [as_run(run) for run in runs]
    shards = {run.root: _shard(run) for run in runs}
    count = _one_split(shards)
    taken = _take_records(assignment, runs, shards, count)
    _one_grader(taken)
    manifests = _manifests(runs, shards)
    _every_listed_student(taken, manifests, count, allow_missing)
    whole = as_run(out)
    _room_in(whole, taken, assignment)
    merged = [_copy_into(taken[student], whole.root) for student in sorted(taken)]
    unplaced = sum(1 for item in taken.values() if item.notebook is None and item.record.source_file)
    if unplaced:
        print(f"merge: {unplaced} record(s) name a notebook not in their run's {SUBMISSIONS}/; they keep no path")
    for record in merged:
        store.save_result(record, whole.results)
    intake = manifests[0]
    for later in manifests[1:]:
        intake = later.merged_into(intake)
    _point_at_copies(intake, [run.root for run in runs], whole.root).save(whole.intake)
    write_shard(whole, None)
    return merged


def _one_split(shards: dict[Path, Shard]) -> int:
    """The number of shards the class was split into; MergeRefused when the runs disagree."""
    counts = sorted({shard.count for shard in shards.values()})
    if len(counts) > 1:
        split = ", ".join(f"{root} is shard {shard}" for root, shard in shards.items())
        raise MergeRefused(f"the runs are shards of different splits of the class ({split})")
    return counts[0]


def _take_records(assignment: str, runs: list[Run], shards: dict[Path, Shard], count: int) -> dict[str, _Taken]:
    """student -> the record the merge takes: each from the shard that owns the student; a student in two
    runs must have the same record in both."""
    taken: dict[str, _Taken] = {}
    for run in runs:
        shard = shards[run.root]
        for record in _records(run, assignment):
            if not shard.owns(record.student):
                raise MergeRefused(
                    f"{run.root} (shard {shard}) holds a record for {one_line(record.student, 80)!r}, whom shard "
                    f"{shard_of(record.student, count)}/{count} grades: a shard's run holds only its own students"
                )
            earlier = taken.get(record.student)
            if earlier is not None:
                if _comparable(earlier.record) != _comparable(record):
                    raise MergeRefused(
                        f"{earlier.run} and {run.root} hold different records for one student "
                        f"({one_line(record.student, 80)!r}): were they graded as shards of one class?"
                    )
                continue
            taken[record.student] = _Taken(record, run.root, _notebook(record, run.root))
    if not taken:
        raise MergeRefused(f"no records of {assignment} in {', '.join(str(r.root) for r in runs)}")
    return taken


def _one_grader(taken: dict[str, _Taken]) -> None:
    """MergeRefused when the standalone records come from graders of different versions."""
    versions = sorted({t.record.grader_version for t in taken.values() if t.record.door == "standalone"})
    if len(versions) > 1:
        raise MergeRefused(
            f"the runs were graded by different graders ({', '.join(v or 'unknown' for v in versions)}); "
            "grade every shard again with one image or checkout"
        )


def _manifests(runs: list[Run], shards: dict[Path, Shard]) -> list[IntakeResult]:
    """The runs' intake manifests in shard order (whatever order the runs were given in); at least one."""
    manifests = []
    for run in sorted(runs, key=lambda run: (shards[run.root].index, str(run.root))):
        if run.intake.is_symlink():
            raise MergeRefused(f"{run.intake} is a link: a merge reads only the runs' own files")
        if run.intake.is_file():
            manifests.append(IntakeResult.load(run.intake))
    if not manifests:
        raise MergeRefused(
            f"no run holds {runs[0].intake.name}: without the intake's list of the class a merge cannot tell "
            "whether a student is missing"
        )
    return manifests


def _every_listed_student(
    taken: dict[str, _Taken], manifests: list[IntakeResult], count: int, allow_missing: bool
) -> None:
    """Every record is of a student the intake lists, and every listed student has one (``allow_missing``:
    a warning instead of a refusal for the second)."""
    listed = {s.student for m in manifests for s in m.submissions + m.missing}
    strangers = sorted(set(taken) - listed)
    if strangers:
        raise MergeRefused(f"records for student(s) the intake does not list: {_names(strangers)}")
    missing = sorted(listed - set(taken))
    if missing:
        rerun = sorted({shard_of(student, count) for student in missing})
        what = (
            f"{len(missing)} of {len(listed)} student(s) the intake lists have no record in these runs: "
            f"{_names(missing)}; shard(s) to grade again: {', '.join(f'{i}/{count}' for i in rerun)}"
        )
        if not allow_missing:
            raise MergeRefused(f"{what} (then merge every shard again, or merge with --allow-missing)")
        print(f"merge: WARNING {what}; merged without them (--allow-missing): no export has a row for them")


def _room_in(whole: Run, taken: dict[str, _Taken], assignment: str) -> None:
    """MergeRefused when ``whole`` holds records of other students, or a copy would go through a link."""
    if whole.results.is_dir():
        stale = sorted(r.student for r in store.load_results(whole.results, assignment) if r.student not in taken)
        if stale:
            raise MergeRefused(
                f"{whole.root} already holds records of {len(stale)} student(s) these shards do not grade "
                f"({_names(stale)}), which would export beside the merged class: merge into a new folder"
            )
    for item in taken.values():
        if item.notebook is not None and not _no_link_below(whole.root, item.notebook):
            raise MergeRefused(f"{whole.root / item.notebook} is reached through a link: a merge follows no link")


def _shard(run: Run) -> Shard:
    """The shard ``run`` graded (``shards.read_shard``); MergeRefused when the run does not say."""
    try:
        return read_shard(run)
    except ValueError as error:
        raise MergeRefused(str(error)) from None


def _names(students: list[str], shown: int = 20) -> str:
    names = ", ".join(repr(one_line(s, 80)) for s in students[:shown])
    return names + (f" and {len(students) - shown} more" if len(students) > shown else "")


def _records(run: Run, assignment: str) -> list[SubmissionResult]:
    """The run's records of ``assignment``, each read from a plain file of its results folder named after
    its student (a link, or a record filed under another student's name, refuses the merge)."""
    folder = run.results
    if folder.is_symlink() or not folder.is_dir():
        raise MergeRefused(f"{run.root} holds no results/ folder of its own: is it a run of `course grade`?")
    records = []
    for path in sorted(folder.iterdir()):
        if path.suffix != ".json":
            continue
        if path.is_symlink() or not path.is_file():
            raise MergeRefused(f"{path} is a link or not a file: a merge reads only the runs' own files")
        try:
            record = store.load_result(path)
        except (ValueError, KeyError, TypeError) as error:
            raise MergeRefused(f"{path} is not a record ({type(error).__name__})") from None
        if record.assignment != assignment:
            continue
        if record.student != path.stem:
            raise MergeRefused(f"{path} holds the record of another student ({record.student[:80]!r})")
        records.append(record)
    return records


def _comparable(record: SubmissionResult) -> dict:
    data = record.to_dict()
    data.pop("timings", None)
    data.pop("source_file", None)
    return data


def _relative_notebook(path_text: str, run: Path) -> Path | None:
    """Where ``path_text`` (a record's or a manifest's notebook) lies in ``run``'s ``submissions/``, as a
    path relative to the run: its place there, or, for a run graded elsewhere (a container names its files
    by its own paths, ``/runs/shard-0/...``), the part from its last ``submissions`` on. None for a path
    with ``..`` or one with no ``submissions/`` part; nothing on the disk is read."""
    path = Path(path_text)
    if ".." in path.parts:
        return None
    relative = None
    if path.is_absolute():
        for root in {Path(run).absolute(), Path(run).resolve()}:
            try:
                relative = path.relative_to(root)
                break
            except ValueError:
                continue
    if relative is None or not relative.parts or relative.parts[0] != SUBMISSIONS:
        parts = path.parts
        if SUBMISSIONS not in parts:
            return None
        relative = Path(*parts[len(parts) - 1 - parts[::-1].index(SUBMISSIONS) :])
    return relative if len(relative.parts) > 1 else None


def _no_link_below(root: Path, relative: Path) -> bool:
    """Whether no folder or file on the way from ``root`` down to ``root/relative`` is a link."""
    place = Path(root)
    for part in relative.parts:
        place = place / part
        if place.is_symlink():
            return False
    return True


def _notebook(record: SubmissionResult, run: Path) -> Path | None:
    """The record's notebook as a path relative to its run, when it is a plain file in the run's
    ``submissions/`` reached through no link; MergeRefused for a path that tries to leave the run."""
    if not record.source_file:
        return None
    if ".." in Path(record.source_file).parts:
        raise MergeRefused(
            f"{run}: the record of {record.student[:80]!r} names its notebook with '..': a merge copies "
            "nothing from outside a run"
        )
    relative = _relative_notebook(record.source_file, run)
    if relative is None or not (Path(run) / relative).exists():
        return None
    if not _no_link_below(run, relative) or not (Path(run) / relative).is_file():
        raise MergeRefused(
            f"{run}: the notebook of {record.student[:80]!r} is reached through a link or is not a file: "
            "a merge follows no link"
        )
    return relative


def _copy_into(item: _Taken, out: Path) -> SubmissionResult:
    """The record with its notebook copied from the shard's run into ``out`` (same relative place); a
    record whose notebook is not in its run keeps no path (nothing outside the merged run is read later)."""
    if item.notebook is None:
        return replace(item.record, source_file="")
    source, target = Path(item.run) / item.notebook, Path(out) / item.notebook
    if target.resolve() != source.resolve():
        target.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(source, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(descriptor, "rb") as reading, open(target, "wb") as writing:
            shutil.copyfileobj(reading, writing)
    return replace(item.record, source_file=str(target))


def _point_at_copies(intake, runs: list[Path], out: Path):
    """The merged manifest with each notebook path that lies in one of ``runs`` moved to the same place in
    ``out`` (every shard's intake copied the whole class's notebooks to the same relative places); a path
    with ``..`` is dropped."""
    for entry in intake.submissions:
        if entry.path and ".." in Path(entry.path).parts:
            entry.path = None
            continue
        for run in runs:
            relative = _relative_notebook(entry.path, run) if entry.path else None
            if relative is not None and (Path(run) / relative).is_file():
                entry.path = str(Path(out) / relative)
                break
    return intake
