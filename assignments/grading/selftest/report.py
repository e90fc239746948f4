"""``course selftest``'s report: per assignment, the behaviour map's coverage, the contract parameters, the
reference over seeds, the blank release, the stand-ins, the traced reference, the variants through both
real doors and every mutant, one printed line each, and the problems found (the other modules of this
package find them)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from assignments import notebooks
from assignments.course import Assignment
from assignments.grading.selftest import (
    behaviour_rows,
    foreign_answers,
    kinds,
    mutant_checks,
    mutation,
    parameter_rows,
    reference,
    stand_in_checks,
    variant_checks,
    visible_checks,
)
from assignments.grading.selftest.forking import grade_mutants
from assignments.grading.selftest.mutation import Mutant, MutantError


def selftest(
    assignments: list[Assignment],
    repeats: int = 1,
    skip_blank: bool = False,
    skip_variants: bool = False,
    only_mutants: list[str] | None = None,
    verbose: bool = False,
) -> int:
    """Print the self-test of each of ``assignments`` and return the exit status (1 on any problem). Per
    assignment: the behaviour map's coverage, the contract parameters the hidden tests vary and those they
    hold fixed, the reference over seeds ``0..repeats-1``, the blank release, the stand-ins (each the
    notebook's own definition, full marks as a student), the traced reference (no question's tests run
    another question's answer), every variant through both real doors, every mutant (caught on its own
    question only) and the visible-check table."""
    problems = []
    for assignment in assignments:
        print(f"== {assignment.name}", flush=True)
        rows = behaviour_rows.behaviour_map(assignment) or []
        found = behaviour_rows.behaviour_map_problems(assignment)
        print(f"  {behaviour_rows.coverage_line(rows)}" + (" (PROBLEM)" if found else ""), flush=True)
        problems += found
        definitions = kinds.graded_definitions(reference.reference_notebook(assignment))
        problems += kinds.kind_problems(assignment.name, definitions, rows)
        found = parameter_rows.contract_parameter_problems(assignment)
        lines = parameter_rows.parameter_lines(parameter_rows.contract_parameters(assignment) or [])
        lines[0] += " (PROBLEM)" if found else ""
        print("\n".join(f"  {line}" for line in lines), flush=True)
        problems += found
        found = reference.check_reference(assignment, range(repeats))
        print(f"  reference over seeds 0..{repeats - 1}: {'PROBLEM' if found else 'full marks'}", flush=True)
        problems += found
        if not skip_blank:
            found = reference.check_blank(assignment)
            print(f"  blank release: {'PROBLEM' if found else 'zero'}", flush=True)
            problems += found
        found = stand_in_checks.stand_in_problems(assignment) + stand_in_checks.check_stand_ins(assignment)
        print(f"  stand-ins: {'PROBLEM' if found else 'the notebook definitions, full marks'}", flush=True)
        problems += found
        found = foreign_answers.foreign_answer_problems(assignment)
        print(f"  traced reference: {'PROBLEM' if found else 'no question runs another answer'}", flush=True)
        problems += found
        kept: dict[str, dict[str, bool]] = {}
        if not skip_variants:
            problems += variants_report(assignment, kept)
        caught: dict[str, bool] = {}
        problems += mutants_report(assignment, rows, only_mutants, verbose, caught)
        print("\n".join(f"  {line}" for line in question_lines(assignment, definitions, rows, caught, kept)))
    for problem in problems:
        print(problem)
    print("self-test passed" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


def variants_report(assignment: Assignment, kept: dict[str, dict[str, bool]] | None = None) -> list[str]:
    """Every variant pack through both real doors; one line per pack and door. ``kept`` gets, per variant,
    per door, whether it kept full marks on its own question."""
    problems = []
    with tempfile.TemporaryDirectory(prefix=f"selftest-{assignment.name}-") as folder:
        graded = variant_checks.grade_variant_packs(assignment, Path(folder))
    for chosen, result in graded:
        found = variant_checks.variant_problems(chosen, result)
        print(
            f"  variants {', '.join(v.name for v in chosen)}: {result.door} door "
            f"{'PROBLEM' if found else 'full marks'}",
            flush=True,
        )
        problems += found
        for variant in chosen:
            own = [q for q in result.questions if q.grade_id == variant.question]
            full = bool(own) and all(q.points >= q.max_points for q in own)
            (kept if kept is not None else {}).setdefault(variant.name, {})[result.door] = full
    if not graded:
        print("  variants: none", flush=True)
    return problems


def mutants_report(
    assignment: Assignment,
    rows,
    only_mutants: list[str] | None = None,
    verbose: bool = False,
    caught: dict[str, bool] | None = None,
) -> list[str]:
    """One line per mutant (caught on its own question only?) and the visible-check table; ``only_mutants``:
    these mutants only (then no line about hidden tests no mutant fails); ``verbose``: each mutant's failed
    tests and the warnings about misleading ones; ``caught`` gets, per mutant graded, whether it lost
    points on its own question."""
    problems, table, results = [], [], []
    chosen = [m for m in mutation.mutants(assignment) if not only_mutants or m.name in only_mutants]
    for mutant, result in grade_mutants(assignment, chosen):
        if isinstance(result, MutantError):
            problems.append(str(result))
            print(f"  {mutant.name}: PROBLEM (not graded: {result})", flush=True)
            continue
        found = mutant_checks.mutant_problems(mutant, result) + visible_checks.contract_problems(mutant, result)
        print(f"  {mutant.name}: {'PROBLEM' if found else f'caught on {mutant.question} only'}", flush=True)
        if verbose:
            for test, message in mutant_checks.failed_tests(mutant, result):
                print(f"      fails {test}: {message.splitlines()[0] if message else ''}")
            for warning in mutant_checks.misleading_failures(mutant, result, rows):
                print(f"      WARNING {warning}")
        problems += found
        results.append(result)
        own = [q for q in result.questions if q.grade_id == mutant.question]
        if caught is not None:
            caught[mutant.name] = any(q.points < q.max_points for q in own)
        failed = visible_checks.visible_check_failed(result)
        table.append((mutant.name, "fails" if failed else "passes", mutant.contract or "-"))
    if results and not only_mutants:
        uncaught = mutant_checks.uncaught_tests(results)
        print(f"  hidden tests no mutant fails: {', '.join(uncaught) if uncaught else 'none'}", flush=True)
        problems += [f"{assignment.name}: hidden test {name} fails for no mutant" for name in uncaught]
    if table:
        width = max(len(name) for name, _, _ in table)
        print(
            f"  visible check below each mutant's TODO (a contract mutant must fail it):\n"
            f"    {'mutant':<{width}}  visible check  contract rule"
        )
        for name, outcome, contract in table:
            print(f"    {name:<{width}}  {outcome:<13}  {contract}")
    return problems


def question_lines(
    assignment: Assignment, definitions: dict[str, str], rows, caught: dict[str, bool], kept
) -> list[str]:
    """Per autograded question: mutants caught (and, per blind hunt, its rate), variants that kept full
    marks in every door they went through, and the behaviour kinds its definitions have no row for."""
    mutants: list[Mutant] = mutation.mutants(assignment)
    variants: list[Mutant] = mutation.variants(assignment)
    missing = kinds.missing_kinds(definitions, rows)
    questions = sorted(set(definitions.values()) | {m.question for m in mutants}, key=_notebook_order(assignment))
    lines = ["per question: mutants caught on it, variants kept (doors), behaviour kinds without a row"]
    for question in questions:
        graded = [m for m in mutants if m.question == question and m.name in caught]
        found = sum(caught[m.name] for m in graded)
        own = [v for v in variants if v.question == question]
        doors = sorted({door for v in own for door in kept.get(v.name, {})})
        full = sum(bool(kept.get(v.name)) and all(kept[v.name].values()) for v in own)
        shown = f"{full}/{len(own)} ({', '.join(doors)})" if doors else f"{len(own)} not graded"
        absent = sorted({kind for d, q in definitions.items() if q == question for kind in missing.get(d, [])})
        lines.append(
            f"  {question}: mutants {found}/{len(graded)}, variants {shown}, "
            f"kinds without a row: {', '.join(absent) if absent else 'none'}"
        )
        for hunt in sorted({m.hunt for m in graded if m.hunt}):
            round_ = [m for m in graded if m.hunt == hunt]
            rate = sum(caught[m.name] for m in round_)
            lines.append(f"    blind hunt {hunt}: {rate}/{len(round_)} caught ({100 * rate / len(round_):.0f}%)")
    return lines


def _notebook_order(assignment: Assignment):
    """A sort key: a question's position in the source notebook (unknown ids last, by name)."""
    order = {
        notebooks.grade_id(cell): index for index, cell in enumerate(reference.reference_notebook(assignment).cells)
    }
    return lambda question: (order.get(question, len(order)), question)
