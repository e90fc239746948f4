"""benchmarks/student_cpu.py keeps working: its quick mode (tiny models) runs in seconds and reports every
figure the student page's CPU table is made of (docs/student.md, read from results/student_cpu.json). The real figures need minutes at the real sizes and are not a test."""

import json
import subprocess
import sys

from assignments.course import REPO

SCRIPT = REPO / "benchmarks" / "student_cpu.py"


def test_quick_mode_reports_each_notebooks_cpu_configuration_and_its_full_size(tmp_path):
    out = tmp_path / "figures.json"
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--samples", "1", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(out.read_text())
    for part in (
        "transformers_cpu",
        "transformers_full_on_cpu",
        "rnn_attention_bert_mini_finetuned",
        "rnn_attention_legal_small_finetuned",
        "transfer_lm_cpu",
        "transfer_lm_full_on_cpu",
    ):
        assert part in figures and part in result.stdout, f"{part} missing from the benchmark's report"
    assert figures["transformers_cpu"]["cache_gib"] < figures["transformers_full_on_cpu"]["cache_gib"]
    assert figures["transfer_lm_cpu"]["pretraining_steps"] < figures["transfer_lm_full_on_cpu"]["pretraining_steps"]
