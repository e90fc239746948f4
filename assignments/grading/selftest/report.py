"""``course selftest``'s report: per assignment, the behaviour map's coverage, the contract parameters, the
reference over seeds, the blank release, the variants through both real doors and every mutant, one
printed line each, and the problems found (``checks`` finds them, ``forking`` grades the mutants)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from . import checks
from .forking import grade_mutants
from .mutation import MutantError


def selftest(
    assignments: list[str],
    repeats: int = 1,
    skip_blank: bool = False,
    skip_variants: bool = False,
    only_mutants: list[str] | None = None,
    verbose: bool = False,
) -> int:
    """Print the self-test of each of ``assignments`` and return the exit status (1 on any problem). Per
    assignment: the behaviour map's coverage, the contract parameters the hidden tests vary and those they
    hold fixed, the reference over seeds ``0..repeats-1``, the blank release, every variant through both
    real doors, every mutant (caught on its own question only) and the visible-check table."""
    problems = []
    for assignment in assignments:
        print(f"== {assignment}", flush=True)
        rows = checks.behaviour_map(assignment) or []
        found = checks.behaviour_map_problems(assignment)
        print(f"  {checks.coverage_line(rows)}" + (" (PROBLEM)" if found else ""), flush=True)
        problems += found
        found = checks.contract_parameter_problems(assignment)
        lines = checks.parameter_lines(checks.contract_parameters(assignment) or [])
        lines[0] += " (PROBLEM)" if found else ""
        print("\n".join(f"  {line}" for line in lines), flush=True)
        problems += found
        found = checks.check_reference(assignment, range(repeats))
        print(f"  reference over seeds 0..{repeats - 1}: {'PROBLEM' if found else 'full marks'}", flush=True)
        problems += found
        if not skip_blank:
            found = checks.check_blank(assignment)
            print(f"  blank release: {'PROBLEM' if found else 'zero'}", flush=True)
            problems += found
        if not skip_variants:
            problems += variants_report(assignment)
        problems += mutants_report(assignment, rows, only_mutants, verbose)
    for problem in problems:
        print(problem)
    print("self-test passed" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


def variants_report(assignment) -> list[str]:
    """Every variant pack through both real doors; one line per pack and door."""
    problems = []
    with tempfile.TemporaryDirectory(prefix=f"selftest-{assignment}-") as folder:
        graded = checks.grade_variant_packs(assignment, Path(folder))
    for chosen, result in graded:
        found = checks.variant_problems(chosen, result)
        print(
            f"  variants {', '.join(v.name for v in chosen)}: {result.door} door "
            f"{'PROBLEM' if found else 'full marks'}",
            flush=True,
        )
        problems += found
    if not graded:
        print("  variants: none", flush=True)
    return problems


def mutants_report(assignment, rows, only_mutants: list[str] | None = None, verbose: bool = False) -> list[str]:
    """One line per mutant (caught on its own question only?) and the visible-check table; ``only_mutants``:
    these mutants only (then no line about hidden tests no mutant fails); ``verbose``: each mutant's failed
    tests and the warnings about misleading ones."""
    problems, table, results = [], [], []
    chosen = [m for m in checks.mutants(assignment) if not only_mutants or m.name in only_mutants]
    for mutant, result in grade_mutants(assignment, chosen):
        if isinstance(result, MutantError):
            problems.append(str(result))
            print(f"  {mutant.name}: PROBLEM (not graded: {result})", flush=True)
            continue
        found = checks.mutant_problems(mutant, result) + checks.contract_problems(mutant, result)
        print(f"  {mutant.name}: {'PROBLEM' if found else f'caught on {mutant.question} only'}", flush=True)
        if verbose:
            for test, message in checks.failed_tests(mutant, result):
                print(f"      fails {test}: {message.splitlines()[0] if message else ''}")
            for warning in checks.misleading_failures(mutant, result, rows):
                print(f"      WARNING {warning}")
        problems += found
        results.append(result)
        failed = checks.visible_check_failed(result)
        table.append((mutant.name, "fails" if failed else "passes", mutant.contract or "-"))
    if results and not only_mutants:
        uncaught = checks.uncaught_tests(results)
        print(f"  hidden tests no mutant fails: {', '.join(uncaught) if uncaught else 'none'}", flush=True)
        problems += [f"{assignment}: hidden test {name} fails for no mutant" for name in uncaught]
    if table:
        width = max(len(name) for name, _, _ in table)
        print(
            f"  visible check below each mutant's TODO (a contract mutant must fail it):\n"
            f"    {'mutant':<{width}}  visible check  contract rule"
        )
        for name, outcome, contract in table:
            print(f"    {name:<{width}}  {outcome:<13}  {contract}")
    return problems
