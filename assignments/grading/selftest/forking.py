"""Grading an assignment's mutants from one run of the reference, forked at each answer cell.

Graded one at a time, every mutant ran the whole reference notebook again, though everything before the
answer cell it replaces is the reference's own code. Here the reference's cells run once, in this process.
Just before answer cell *i* runs, the process forks once per mutant that replaces cell *i*. The child
holds the state a fresh run of the mutated notebook reaches at that point (the same cells ran in the same
order, so the same objects and the same random-number states), runs the mutated cell and every cell
after it, the visible check and the hidden suite, sends its record to the parent through a pipe and
exits; the parent waits for it, then runs the reference's cell *i* and goes on. One child at a time:
the graders that call this already keep every core busy (one per pytest-xdist worker).

A mutant graded here gets the record ``mutant_checks.grade_mutant`` gives it (``tests/grading/selftest``
compares the two). POSIX only: the self-test runs on Linux (CI) and macOS.
"""

from __future__ import annotations

import gc
import json
import os
import signal
from collections.abc import Callable, Iterable, Iterator

from assignments import notebooks
from assignments.course import Assignment
from assignments.grading.doors.inprocess import execute_cells, grade_namespace
from assignments.grading.selftest.mutant_checks import apply_mutant
from assignments.grading.selftest.mutation import Mutant, MutantError
from assignments.grading.selftest.reference import reference_notebook
from assignments.grading.selftest.visible_checks import visible_check
from assignments.grading.testkit.suite import single_threaded_torch
from assignments.results.model import SubmissionResult


def answer_positions(nb) -> dict[str, int]:
    """{answer cell's grade_id: its position among the cells a grading runs}; a grade_id on more than one
    answer cell is left out, so a mutant naming it fails as ``apply_mutant`` says."""
    positions: dict[str, int] = {}
    repeated = set()
    for index, cell in enumerate(notebooks.cells_to_run(nb)):
        if notebooks.is_answer(cell):
            grade_id = notebooks.grade_id(cell)
            if grade_id in positions:
                repeated.add(grade_id)
            positions[grade_id] = index
    return {grade_id: index for grade_id, index in positions.items() if grade_id not in repeated}


def grade_mutants(
    assignment: Assignment, mutants: Iterable[Mutant], whole: Callable[[Mutant], bool] = lambda mutant: True
) -> Iterator[tuple[Mutant, SubmissionResult | MutantError]]:
    """(mutant, its record) for each of ``mutants``, in notebook order of the cells they replace; a
    mutant that does not apply (or whose grading process died) comes with a MutantError instead.
    ``whole(mutant)``: grade that mutant on every question (the default); where it is False, only the
    mutant's own question's tests run (its record holds that question alone), though every cell still runs."""
    reference = reference_notebook(assignment)
    positions = answer_positions(reference)
    waiting: dict[int, list[Mutant]] = {}
    for mutant in mutants:
        if mutant.replaces not in positions:
            yield mutant, MutantError(f"{mutant.label}: no single answer cell with grade_id {mutant.replaces!r}")
            continue
        waiting.setdefault(positions[mutant.replaces], []).append(mutant)
    if not waiting:
        return
    # Once through the reference and its suite first, in this process: what the children would otherwise
    # each import or build again and lose on exit (the suite's modules, the stand-ins, the libraries' lazy
    # imports and caches) is then made once and inherited.
    warm, warm_findings = execute_cells(reference)
    grade_namespace(assignment, warm, warm_findings)
    namespace = {"__name__": "__main__"}
    findings = []
    done = 0
    for position in sorted(waiting):
        # The reference up to (not including) the answer cell these mutants replace.
        _, more = execute_cells(reference, namespace, start=done, stop=position)
        findings += more
        done = position
        for mutant in waiting[position]:
            try:
                mutated = apply_mutant(reference, mutant)
            except MutantError as error:
                yield mutant, error
                continue
            selected = None if whole(mutant) else [mutant.question]
            yield mutant, _in_child(assignment, mutant, mutated, namespace, findings, position, selected)


def _in_child(
    assignment: Assignment, mutant: Mutant, mutated, namespace: dict, findings: list, position: int, selected=None
):
    """Fork; the child grades ``mutated`` from cell ``position`` on (the questions ``selected``, or all) and
    writes its record to a pipe."""
    read_end, write_end = os.pipe()
    # Everything alive now goes to the collector's permanent generation for the fork: a collection in the
    # child would otherwise walk (and so copy, page by page) the whole inherited heap.
    gc.freeze()
    pid = os.fork()
    if pid != 0:
        gc.unfreeze()
    if pid == 0:  # the child: never returns into the caller's code (pytest, the CLI)
        os.close(read_end)
        try:
            with single_threaded_torch():
                _, more = execute_cells(mutated, namespace, start=position)
                check = visible_check(mutated, mutant.replaces, namespace)
                result = grade_namespace(assignment, namespace, findings + more, mutant.name, selected=selected)
            result.findings.append(check)
            reply = {"record": result.to_dict()}
        except BaseException as error:  # noqa: BLE001 - the parent reports it; the child must not unwind
            reply = {"error": f"{type(error).__name__}: {error}"}
        try:
            with os.fdopen(write_end, "w", encoding="utf-8") as pipe:
                json.dump(reply, pipe)
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, encoding="utf-8") as pipe:
        text = pipe.read()
    _, status = os.waitpid(pid, 0)
    reply = json.loads(text) if text else {}
    if "record" in reply:
        return SubmissionResult.from_dict(reply["record"])
    if "error" in reply:
        return MutantError(f"{mutant.label}: grading it from the forked reference raised {reply['error']}")
    how = (
        f"was killed by {signal.Signals(os.WTERMSIG(status)).name}"
        if os.WIFSIGNALED(status)
        else f"exited with status {os.WEXITSTATUS(status)} and no record"
    )
    return MutantError(f"{mutant.label}: the process grading it from the forked reference {how}")
