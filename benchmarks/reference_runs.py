"""Reference runs for TAs: a source notebook, solutions in, run top to bottom as a student runs it, once per
seed, recording what its evidence cells print (issue #34, item 2).

Student mode (no NBGRADER_EXECUTION), CPU only, offline. ``--hub offline`` gives the notebook no hub at all,
so it takes its offline fallback (the synthetic data it builds itself), as a student without network gets
it; ``--hub standin`` serves the stand-in hub (assignments/demo/standin_hub.py: tiny models, small datasets under
the real ids), which exercises the online branch but whose figures mean little. Each seed replaces every
``seed_everything(0)`` of the notebook. The JSON written names the conditions (notebook, mode, hub, seeds,
library versions, machine) and, per seed, each evidence cell's printed text; the model answers cite it as
``Measured: benchmarks/results/reference_<assignment>.json ...``.

    .venv/bin/python benchmarks/reference_runs.py transfer_lm --seeds 0 1 2 3 4 \\
        --out benchmarks/results/reference_transfer_lm.json
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import re
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

import nbclient

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from assignments import notebooks  # noqa: E402
from assignments.course import default  # noqa: E402
from assignments.demo import standin_hub  # noqa: E402

# One torch thread: the figures do not depend on how busy a shared machine is (Colab's CPU runtime has 2).
THREADS = 1
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS\n?", re.S)


def student_notebook(assignment: str, seed: int, replace: list[tuple[str, str]] = ()):
    """The source with its solutions, without hidden tests, every seed_everything(0) made seed_everything(seed),
    and each (old, new) text of ``replace`` replaced in the code cells (each must occur)."""
    nb = copy.deepcopy(default().assignment(assignment).source_notebook())
    for old, _new in replace:
        if not any(old in cell.source for cell in nb.cells if cell.cell_type == "code"):
            raise SystemExit(f"--replace: {old!r} occurs in no code cell of {assignment}")
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = HIDDEN.sub("", cell.source).replace("seed_everything(0)", f"seed_everything({seed})")
            for old, new in replace:
                cell.source = cell.source.replace(old, new)
    return nb


def printed(cell) -> str:
    """What a cell printed to stdout (progress bars go to stderr and are left out)."""
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("name") == "stdout")


def run(assignment: str, seed: int, env: dict, workdir: Path, replace=()) -> dict:
    nb = student_notebook(assignment, seed, replace)
    evidence = sorted({cell for cells in notebooks.evidence_cells(nb).values() for cell in cells})
    saved = dict(os.environ)
    os.environ.update(env)
    os.environ.pop("NBGRADER_EXECUTION", None)
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = str(THREADS)
    try:
        start = time.perf_counter()
        nbclient.NotebookClient(
            nb, timeout=3600, kernel_name="python3", resources={"metadata": {"path": str(workdir)}}
        ).execute()
        seconds = time.perf_counter() - start
    finally:
        os.environ.clear()
        os.environ.update(saved)
    cells = {notebooks.grade_id(cell): cell for cell in nb.cells if notebooks.grade_id(cell)}
    everything = "".join(printed(cell) for cell in nb.cells if cell.cell_type == "code")
    return {
        "seed": seed,
        "minutes": round(seconds / 60, 1),
        "fallback_lines": [line for line in everything.splitlines() if "FALLBACK" in line or "RUNTIME" in line],
        "evidence": {name: printed(cells[name]) for name in evidence},
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("assignment")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--hub", choices=("offline", "standin"), default="offline")
    parser.add_argument(
        "--replace",
        nargs=2,
        action="append",
        default=[],
        metavar=("OLD", "NEW"),
        help="a variant: replace OLD by NEW in the code cells (recorded with the conditions)",
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="reference-runs-") as scratch:
        scratch = Path(scratch)
        if args.hub == "standin":
            env = standin_hub.build(scratch / "hub")
        else:  # empty caches and no network: the notebook's own fallback
            env = standin_hub.cache_env(scratch / "empty-hub")
        runs = []
        for seed in args.seeds:
            runs.append(run(args.assignment, seed, env, scratch, args.replace))
            print(f"seed {seed}: {runs[-1]['minutes']} min", flush=True)
    record = {
        "assignment": args.assignment,
        "conditions": {
            "notebook": f"source/{args.assignment}/{args.assignment}.ipynb with its solutions, hidden tests removed",
            "mode": "student mode (NBGRADER_EXECUTION unset), CPU only (CUDA_VISIBLE_DEVICES empty), "
            f"{THREADS} torch thread(s)",
            "hub": {
                "offline": "none: the notebook's offline fallback (synthetic data it builds itself)",
                "standin": "the stand-in hub (assignments/demo/standin_hub.py)",
            }[args.hub],
            "seeds": "every seed_everything(0) of the notebook replaced by seed_everything(<seed>)",
            "replaced": [{"old": old, "new": new} for old, new in args.replace],
            "python": platform.python_version(),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "libraries": {name: metadata.version(name) for name in ("torch", "datasets", "numpy")},
        },
        "runs": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
