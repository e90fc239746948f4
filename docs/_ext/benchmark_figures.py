"""Every measured figure the docs quote, read from benchmarks/results/ at build time.

Pages quote a figure as a MyST substitution, ``{{ grade.s_per_submission_core }}``, and a table of them with
``% generated: sizing`` (course_reference.py's marker). The figures come from the results files the
benchmarks write (benchmarks/README.md says how each was measured, on what machine, and keeps the history):
a new measurement changes the docs at the next build, and a page can never quote a figure no file holds.
A file or key that is missing stops the build.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from course_reference import GENERATORS
from sphinx.errors import ExtensionError

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
SIZING_CLASS = 800  # the class the sizing table is for (the day-one question)
SIZING_CORES = (2, 8, 16, 32, 64)


def results(name: str):
    path = RESULTS / name
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ExtensionError(f"benchmark figures: cannot read {path}: {error}") from error


def classes(name: str) -> list[dict]:
    """The class runs of a grade_class.py results file (its other entries are single submissions)."""
    found = [entry for entry in results(name) if "per_submission_per_core_s" in entry]
    if not found:
        raise ExtensionError(f"benchmark figures: {name} holds no class run")
    return found


def span(values, digits: int = 1, unit: str = "") -> str:
    low, high = min(values), max(values)
    text = (
        f"{low:.{digits}f}" if round(low, digits) == round(high, digits) else f"{low:.{digits}f} to {high:.{digits}f}"
    )
    return text + unit


def grading() -> dict:
    """A class graded on one machine: grade_class.py's largest class (results/grade_class_24.json)."""
    runs = classes("grade_class_24.json")
    worst = max(runs, key=lambda run: run["per_submission_per_core_s"])
    return {
        "students": runs[0]["students"],
        "cores": runs[0]["cores"],
        "workers": runs[0]["workers"],
        "s_per_submission_core": f"{worst['per_submission_per_core_s']:.2f}",
        "s_per_submission_core_span": span([r["per_submission_per_core_s"] for r in runs], 2, " s"),
        "cpu_per_submission_span": span([r["cpu_per_submission_s"] for r in runs], 2, " s"),
        "slowest_assignment": worst["assignment"],
        "mb_per_worker": max(run["pss_per_worker_mb"] for run in runs),
        "mb_per_worker_span": span([r["pss_per_worker_mb"] for r in runs], 0, " MB"),
        "class_wall_span": span([r["wall_s"] for r in runs], 0, " s"),
    }


def gradescope() -> dict:
    """One submission in a container at Gradescope's defaults (results/grade_class_gradescope_zygote_768.json)."""
    runs = results("grade_class_gradescope_zygote_768.json")
    limits = {run["limits"] for run in runs}
    if len(limits) != 1:
        raise ExtensionError(f"grade_class_gradescope_zygote_768.json mixes limits: {limits}")
    return {
        "limits": limits.pop().split(" (")[0],
        "wall_span": span([r["wall_s"] for r in runs], 0, " s"),
        "unique_mb_span": span([r["unique_peak_mb"] for r in runs], 0, " MB"),
        "memory_limit_mb": runs[0]["memory_limit_mb"],
        "oom_kills": sum(r["oom_kills"] for r in runs),
    }


def student_cpu() -> dict:
    """The students' CPU path (results/student_cpu.json, and transfer_lm's preference tuning from
    results/transfer_lm_dpo_cpu.json), and on Colab's CPU runtime by the factor a step
    timed there gave (results/colab_cpu_factor.json)."""
    figures = results("student_cpu.json")
    preference = results("transfer_lm_dpo_cpu.json")  # benchmarks/dpo_cpu.py
    factor_file = results("colab_cpu_factor.json")
    factor = factor_file["colab_seconds"] / factor_file["here_cpu_seconds"]
    parts = {
        "transformers_part3": figures["transformers_cpu"]["total_minutes_from_cpu_time"],
        "rnn_finetuned": figures["rnn_attention_bert_mini_finetuned"]["minutes_from_cpu_time"],
        "rnn_frozen": figures["rnn_attention_bert_mini_frozen"]["minutes_from_cpu_time"],
        "rnn_legal": figures["rnn_attention_legal_small_finetuned"]["minutes_from_cpu_time"],
        "transfer_pretraining": figures["transfer_lm_cpu"]["pretraining_minutes_from_cpu_time"],
        "transfer_transfer": figures["transfer_lm_cpu"]["transfer_minutes_from_cpu_time"],
        "transfer_preference": preference["cpu"]["total_minutes_from_cpu_time"],
    }
    out = {f"{name}_colab_min": f"{minutes * factor:.0f}" for name, minutes in parts.items()}
    out["factor"] = f"{factor:.1f}"
    out["peak_gib"] = f"{math.ceil(figures['peak_host_gib'] * 10) / 10:.1f}"  # "under about": rounded up
    out["machine"] = figures["machine"]
    return out


def sizing() -> str:
    """Time and memory to grade SIZING_CLASS students on one machine of N cores, one worker per core: the
    sizing rule `course grade` prints (assignments/sizing.py), from results/grade_class_sizes.json."""
    from assignments import sizing as rule

    source = rule.figures(RESULTS / "grade_class_sizes.json")
    if source is None:
        raise ExtensionError("benchmark figures: grade_class_sizes.json holds no class run")
    rows = [
        f"| cores (one worker each) | {SIZING_CLASS} students take | memory for the workers and `course grade` |",
        "| ---: | ---: | ---: |",
    ]
    for cores in SIZING_CORES:
        estimate = rule.estimate(SIZING_CLASS, cores, source)
        measured = " (the measured machine)" if cores == 2 else ""
        rows.append(f"| {cores}{measured} | {estimate.minutes:.0f} min | {estimate.memory_gb:.1f} GB |")
    return "\n".join(rows) + "\n"


def class_sizes_rows() -> list[dict]:
    return classes("grade_class_sizes.json")


def class_sizes_table() -> str:
    """Every class grade_class.py graded for the sizing rule, smallest first (results/grade_class_sizes.json)."""
    rows = [
        "| students | workers | wall | CPU per submission | memory per submission being graded | "
        "class memory at the peak | load average before → after (1 min) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for run in sorted(class_sizes_rows(), key=lambda r: (r["students"], -r["workers"])):
        rows.append(
            f"| {run['students']} | {run['workers']} | {run['wall_s']:.0f} s | {run['cpu_per_submission_s']:.2f} s | "
            f"{run['pss_per_worker_mb']} MB | {run['class_pss_peak_mb']} MB | "
            f"{run['load_before'][0]:.1f} → {run['load_after'][0]:.1f} |"
        )
    return "\n".join(rows) + "\n"


def class_sizes() -> dict:
    """The sizing rule's figures and how they moved with the class (results/grade_class_sizes.json)."""
    from assignments import sizing as rule

    runs = class_sizes_rows()
    source = rule.figures(RESULTS / "grade_class_sizes.json")
    smallest, largest = min(r["students"] for r in runs), max(r["students"] for r in runs)
    cpu_at = {
        size: max(r["cpu_per_submission_s"] for r in runs if r["students"] == size) for size in (smallest, largest)
    }
    loads = [x for r in runs for x in (r["load_before"][0], r["load_after"][0])]
    idle = [r for r in classes("grade_class_24.json") if r["assignment"] == source.assignment]
    if not idle:
        raise ExtensionError(f"benchmark figures: grade_class_24.json has no class of {source.assignment}")
    one_worker = [r for r in runs if r["workers"] == 1]
    return {
        "assignment": source.assignment,
        "students": source.students,
        "sizes": ", ".join(str(n) for n in sorted({r["students"] for r in runs})),
        "cpu_s": f"{source.cpu_s_per_submission:.2f}",
        "mb": source.mb_per_worker,
        "smallest": smallest,
        "cpu_smallest": f"{cpu_at[smallest]:.2f}",
        "cpu_largest": f"{cpu_at[largest]:.2f}",
        "load_span": span(loads, 1),
        "supervisor_mb": rule.SUPERVISOR_MB,
        "idle_cpu_s": f"{idle[0]['cpu_per_submission_s']:.2f}",
        "idle_students": idle[0]["students"],
        "one_worker_mb": max(r["pss_per_worker_mb"] for r in one_worker) if one_worker else "not measured",
    }


def figures() -> dict:
    return {
        "grade": grading(),
        "sizes": class_sizes(),
        "gradescope": gradescope(),
        "student_cpu": student_cpu(),
        "sizing_class": SIZING_CLASS,
    }


def add_figures(app, config) -> None:
    config.myst_substitutions = {**config.myst_substitutions, **figures()}


def setup(app):
    GENERATORS["sizing"] = sizing
    GENERATORS["class-sizes"] = class_sizes_table
    app.connect("config-inited", add_figures)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
