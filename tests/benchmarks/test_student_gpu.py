"""benchmarks/student_gpu.py keeps working: its quick mode runs on a CPU in seconds and reports every figure.

The full mode needs a GPU and minutes; the quick mode runs the same code paths (real BertModel from a
BertConfig, the GRU head, the small-BERT fine-tuning) at reduced size, so a change that breaks the
benchmark fails here rather than on the next GPU run.
"""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from assignments.course import REPO

SCRIPT = REPO / "benchmarks" / "student_gpu.py"
# One worker runs this module (`--dist loadgroup`): both tests read one quick run, which each worker that got
# one of them ran again.
pytestmark = pytest.mark.xdist_group("student_gpu_benchmark")


def load_benchmark():
    spec = importlib.util.spec_from_file_location("student_gpu", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One quick run (about 10-20 s here), shared by the tests: (stdout, figures)."""
    out = tmp_path_factory.mktemp("student_gpu") / "figures.json"
    # Hide any GPU so the test checks the CPU default; quick is what runs without --full.
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out)], capture_output=True, text=True, env=env, cwd=REPO, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout, json.loads(out.read_text())


def test_quick_mode_on_cpu_prints_each_ratio_memory_and_cache_size(quick_run):
    stdout, figures = quick_run
    assert figures["mode"] == "quick" and figures["device"] == "cpu"
    expected_ratios = {
        "fp32_over_fp16",
        "fixed512_over_sorted",
        "recomputed_over_cached_5_epochs",
        "finetune_fp32_over_frozen",
        "finetune_fp32_over_fp16",
    }
    assert expected_ratios <= set(figures["ratios"])
    for name in expected_ratios:
        assert figures["ratios"][name] > 0, name
        assert name in stdout, f"ratio {name} is not printed"
    assert figures["cache"]["nominal_bytes"] > 0
    assert figures["host_peak_rss_bytes"] > 0
    assert "peak host RSS" in stdout and "feature cache of" in stdout


def test_t4_projection_runs_on_quick_figures_and_orders_its_ranges(quick_run):
    # The projection only runs in --full mode on a GPU; feed it quick CPU figures so its code cannot rot.
    benchmark = load_benchmark()
    _, figures = quick_run
    lines = []
    projection = benchmark.project_t4(figures, "H100 SXM", lines.append)
    low, high = projection["total_seconds"]
    assert 0 < low <= high
    for name, (phase_low, phase_high) in projection["phases_seconds"].items():
        assert 0 < phase_low <= phase_high, name
    assert any("T4 projection" in line for line in lines)
