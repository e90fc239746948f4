"""Reference figures for rnn_attention's run-dependent questions that need no network (issue #34, item 2):
the cells those questions' evidence comes from, run as a student runs them, on the CPU, offline.

``reference_runs.py`` runs a whole notebook; these questions need only some of its parts, so this driver keeps
the definitions and the experiments they need and leaves out the visible checks and the plots of attention:

* ``--part pig_latin``: Parts 1 to 3, whose data the notebook builds itself (the evidence of more_data_written,
  failure_modes_written, attention_speed_written and size_data_written);
* ``--part kv_cache``: the attention experiment (whose transformer it decodes) and cell cached_decoding, the
  evidence of kv_cache_written;
* ``--part bert_offline``: Part 4 on its offline fallback with the optional corpus comparison switched on (the
  fallback's figures in optional_answers.md; they say nothing about the real checkpoints);
* ``--part lora_offline``: Part 4's fine-tuned, frozen and LoRA runs on its offline fallback (the reference
  figures of lora_written, issue #35);
* ``--part positions``: the definitions the transformer decoder needs (RMSNorm and apply_rotary among them) and
  cell positional_experiment, the evidence of positional_written (issue #47).

Everything else is ``reference_runs.py``'s: the source with its solutions, hidden tests removed,
``seed_everything(0)`` replaced by the run's seed, student mode, CPU only, an empty hub cache offline.

    .venv/bin/python benchmarks/reference_rnn_attention.py --part pig_latin --seeds 0 1 2 3 4 \\
        --out benchmarks/results/reference_rnn_attention.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

import nbclient
import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import reference_runs  # noqa: E402

from assignments import notebooks  # noqa: E402
from assignments.demo import standin_hub  # noqa: E402

# Per part: the cells run, in notebook order (definitions, data, experiments), and those whose printed lines
# are recorded.
PIG_LATIN = (
    "setup",
    "gru_cell",
    "data",
    "vocab",
    "gru_encoder",
    "decoders_and_training",
    "rnn_experiment",
    "rnn_translations",
    "additive_attention",
    "scaled_dot_attention",
    "causal_attention",
    "attention_decoders",
    "attention_experiment",
    "transformer_scaling",
)
# The key/value cache decodes the attention experiment's transformer; the other Pig Latin experiments are not needed.
KV_CACHE = tuple(
    name for name in PIG_LATIN if name not in ("rnn_experiment", "rnn_translations", "transformer_scaling")
)
KV_CACHE += ("kv_cache_attention", "decoder_step", "cached_decoding")
BERT_OFFLINE = ("setup", "bert_classifier", "freeze_encoder", "bert_data", "bert_training", "corpus_comparison")
POSITIONS = tuple(
    name
    for name in PIG_LATIN
    if name not in ("rnn_experiment", "rnn_translations", "attention_experiment", "transformer_scaling")
) + ("rms_norm", "rotary", "positional_experiment")
LORA_OFFLINE = ("setup", "bert_classifier", "freeze_encoder", "bert_data", "bert_training", "lora", "lora_experiment")
PARTS = {
    "pig_latin": (PIG_LATIN, ("rnn_experiment", "rnn_translations", "attention_experiment", "transformer_scaling")),
    "kv_cache": (KV_CACHE, ("attention_experiment", "cached_decoding")),
    "bert_offline": (BERT_OFFLINE, ("bert_data", "bert_training", "corpus_comparison")),
    "lora_offline": (LORA_OFFLINE, ("bert_training", "lora_experiment")),
    "positions": (POSITIONS, ("positional_experiment",)),
}
# The optional comparison runs only when its switch is on; the switch cell has no grade_id, so it is set here.
SWITCH_ON = "RUN_CORPUS_COMPARISON = True"


def run(part: str, seed: int, workdir: Path) -> dict:
    cells_run, evidence = PARTS[part]
    nb = reference_runs.student_notebook("rnn_attention", seed)
    nb.cells = [cell for cell in nb.cells if notebooks.grade_id(cell) in cells_run]
    missing = set(cells_run) - {notebooks.grade_id(cell) for cell in nb.cells}
    if missing:
        raise SystemExit(f"rnn_attention has no cell {sorted(missing)}")
    if part == "bert_offline":
        nb.cells[0].source += f"\n{SWITCH_ON}\n"
    seconds, cpu_seconds = {}, {}
    client = nbclient.NotebookClient(
        nb, timeout=3600, kernel_name="python3", resources={"metadata": {"path": str(workdir)}}
    )

    def kernel_cpu_seconds():
        # the kernel's own CPU time (all its threads), read by a probe cell that is not part of the notebook
        probe = nbformat.v4.new_code_cell("import time as _probe_time; print(_probe_time.process_time())")
        client.execute_cell(probe, 0, store_history=False)
        return float("".join(output.get("text", "") for output in probe.outputs))

    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            start, cpu_start = time.perf_counter(), kernel_cpu_seconds()
            client.execute_cell(cell, index)
            seconds[notebooks.grade_id(cell)] = round(time.perf_counter() - start, 1)
            cpu_seconds[notebooks.grade_id(cell)] = round(kernel_cpu_seconds() - cpu_start, 1)
    cells = {notebooks.grade_id(cell): cell for cell in nb.cells}
    return {
        "seed": seed,
        "seconds_per_cell": seconds,
        "cpu_seconds_per_cell": cpu_seconds,
        "evidence": {name: reference_runs.printed(cells[name]) for name in evidence},
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=sorted(PARTS), default="pig_latin")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    saved = dict(os.environ)
    runs = []
    try:
        with tempfile.TemporaryDirectory(prefix="reference-rnn-") as scratch:
            # no hub at all: empty caches, offline (the notebook takes its fallback, as without network)
            os.environ.update(standin_hub.cache_env(Path(scratch) / "empty-hub"))
            os.environ.pop("NBGRADER_EXECUTION", None)
            os.environ["CUDA_VISIBLE_DEVICES"] = ""
            os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = str(reference_runs.THREADS)
            for seed in args.seeds:
                runs.append(run(args.part, seed, Path(scratch)))
                print(f"seed {seed}: {sum(runs[-1]['seconds_per_cell'].values()) / 60:.1f} min", flush=True)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    record = {
        "assignment": "rnn_attention",
        "part": args.part,
        "conditions": {
            "notebook": "source/rnn_attention/rnn_attention.ipynb with its solutions, hidden tests removed; only the "
            f"cells {', '.join(PARTS[args.part][0])}" + (f"; {SWITCH_ON}" if args.part == "bert_offline" else ""),
            "mode": "student mode (NBGRADER_EXECUTION unset), CPU only (CUDA_VISIBLE_DEVICES empty), "
            f"{reference_runs.THREADS} torch thread (train_seq2seq sets one thread itself)",
            "data": {
                "pig_latin": "the notebook's own Pig Latin pairs (no download)",
                "kv_cache": "the notebook's own Pig Latin pairs (no download); random weights for the long continuation",
                "bert_offline": "no hub (empty caches, offline): the notebook's synthetic sentiment task and corpora",
                "lora_offline": "no hub (empty caches, offline): the notebook's synthetic sentiment task",
                "positions": "the notebook's own Pig Latin pairs (no download)",
            }[args.part],
            "seeds": "every seed_everything(0) of the notebook replaced by seed_everything(<seed>)",
            "python": platform.python_version(),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, shared; load average {load:.1f} at the end",
            "libraries": {name: metadata.version(name) for name in ("torch", "numpy")},
        },
        "runs": runs,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
