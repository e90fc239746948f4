"""Variants: correct answers written differently, which must keep full marks in both real doors.

A variant (``autograder/<assignment>/variants/<name>.py``) is in the mutants' format; the first paragraph
of its docstring says how it differs (optionally ``source: <the tutorial imitated>``). All are correct, so
they are packed into as few notebooks as possible (``variant_packs``) and each pack is graded as a
student's notebook (``grade_variant_packs``).
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from assignments import notebooks
from assignments.course import Assignment
from assignments.grading.doors.inprocess import grade_notebook
from assignments.grading.selftest.mutant_checks import apply_mutant
from assignments.grading.selftest.mutation import Mutant, variants
from assignments.grading.selftest.reference import (
    as_submitted,
    filled_release,
    full_marks_problems,
    reference_notebook,
)
from assignments.results.model import SubmissionResult


def variant_pack_count(assignment: Assignment) -> int:
    """How many notebooks ``variant_packs`` writes: the most variants any one answer cell has."""
    per_cell: dict[str, int] = {}
    for variant in variants(assignment):
        per_cell[variant.replaces] = per_cell.get(variant.replaces, 0) + 1
    return max(per_cell.values(), default=0)


def variant_packs(assignment: Assignment, chosen: range | None = None) -> list[tuple[list[Mutant], object]]:
    """[(variants, source notebook)]: the variants in as few notebooks as possible. All are correct, so one
    notebook may answer every cell with a variant at once: notebook k holds the k-th variant of each answer
    cell (in file order), the solution where a cell has fewer. ``chosen``: only those notebooks (indices from
    0 below ``variant_pack_count``), so that a test run can spread the packs over its workers."""
    by_cell: dict[str, list[Mutant]] = {}
    for variant in variants(assignment):
        by_cell.setdefault(variant.replaces, []).append(variant)
    packs = []
    for k in chosen if chosen is not None else range(variant_pack_count(assignment)):
        found = [cell[k] for cell in by_cell.values() if k < len(cell)]
        nb = reference_notebook(assignment)
        for variant in found:
            nb = apply_mutant(nb, variant)
        packs.append((found, nb))
    return packs


DOORS = ("standalone", "nbgrader")


def answered_alone(assignment: Assignment, pack) -> object:
    """The release notebook with only ``pack``'s variant cells answered (typed as a student would), every other
    answer cell as released: each question's hidden tests stand in for the answers it builds on, so a variant
    earns its question's marks alone, and a notebook whose other cells stop at once costs a door seconds."""
    found, nb = pack
    mine = {v.replaces for v in found}
    answers = {notebooks.grade_id(c): notebooks.student_text(c) for c in nb.cells if notebooks.is_answer(c)}
    return filled_release(assignment, {gid: answers[gid] for gid in mine}, others=False)


def grade_variant_packs(
    assignment: Assignment,
    folder: Path,
    doors=DOORS,
    chosen: range | None = None,
    nbgrader_course: Path | None = None,
    alone: bool = False,
) -> list[tuple[list[Mutant], SubmissionResult]]:
    """Each variant pack (``chosen`` of them, or all) written under ``folder`` as a student's notebook and
    graded by each door in ``doors``: the real ones (the standalone door's sandboxed kernel; real ``nbgrader
    autograde``, these packs as students of one nbgrader course) and "in-process" (the mutants' door: the
    packs are our own code, so they may run here). A pack keeps its number (``variants-K``, from 1) whichever
    are chosen. ``nbgrader_course``: an nbgrader course folder to grade in, kept between calls (generating
    one costs about 13 s), made there when it has no gradebook yet; by default a new one under ``folder``.
    ``alone``: the real doors get ``answered_alone`` notebooks (check them with ``variant_problems(...,
    alone=True)``); in-process always grades the whole pack."""
    from assignments.grading.doors import standalone
    from assignments.grading.doors.nbgrader import door as nbgrader_door

    numbers = list(chosen if chosen is not None else range(variant_pack_count(assignment)))
    packs = dict(zip((f"variants-{k + 1}" for k in numbers), variant_packs(assignment, numbers), strict=True))
    graded = [
        (found, grade_notebook(assignment, nb, name)) for name, (found, nb) in packs.items() if "in-process" in doors
    ]
    paths = {}
    for name, pack in packs.items():
        paths[name] = folder / f"{name}.ipynb"
        paths[name].parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(answered_alone(assignment, pack) if alone else as_submitted(assignment, pack[1]), paths[name])
    if "standalone" in doors:
        graded += [(packs[s][0], standalone.grade_submission(assignment, p, s)) for s, p in paths.items()]
    if "nbgrader" in doors and paths:
        course = nbgrader_course or folder / "nbgrader-course"
        with nbgrader_door.nbgrader_reaper(assignment.course.root) as reaper:
            if not (course / "gradebook.db").is_file():
                nbgrader_door.prepare_course(assignment, course, reaper)
            graded += [
                (
                    packs[s][0],
                    nbgrader_door.autograde_one(assignment, course, s, p, nbgrader_door.NOTEBOOK_TIMEOUT_S, reaper),
                )
                for s, p in paths.items()
            ]
    return graded


def variant_problems(variants_in: list[Mutant], result: SubmissionResult, alone: bool = False) -> list[str]:
    """What keeps a pack from full marks; ``alone``: on its variants' own questions only (``answered_alone``)."""
    names = ", ".join(v.name for v in variants_in)
    only = {v.question for v in variants_in} if alone else None
    return full_marks_problems(result, f"variants {names} through the {result.door} door", only)
