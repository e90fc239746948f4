"""benchmarks/gpu_grading.py's comparison and its control (no GPU, no kernel, about a second).

The comparison is what says whether a GPU host grades like a CPU host, so it must find every changed
question, a student graded in one run only, and say nothing when nothing changed. The control must take
the accelerator variables out of ``GRADING_ENV`` only while it runs, and put them back.
"""

import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "gpu_grading.py"


def load_benchmark():
    spec = importlib.util.spec_from_file_location("gpu_grading", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def student(points: dict, lost: dict | None = None) -> dict:
    return {
        "status": "graded",
        "points": sum(p or 0 for p in points.values()),
        "max": 6.0,
        "questions": points,
        "question_max": {q: 3.0 for q in points},
        "findings": [],
        "lost": lost or {},
        "seconds": 1.0,
    }


def report(label: str, students: dict) -> dict:
    return {
        "label": label,
        "accelerators": "hidden",
        "host": {},
        "assignments": {"transformers": {"standalone": {"students": students, "wall_s": 1, "workers": 1}}},
    }


def test_same_points_everywhere_is_no_difference():
    bench = load_benchmark()
    a = report("cpu", {"reference": student({"q1": 3.0, "q2": 3.0, "essay": None})})
    text, same = bench.compare_text(a, json.loads(json.dumps(a)))
    assert same, text
    assert "same points on every question" in text
    assert bench.differences(a, a)[1][0]["students_changed"] == 0


def test_a_question_that_lost_points_is_a_row_with_the_losing_sides_message():
    bench = load_benchmark()
    cpu = report("cpu", {"reference": student({"q1": 3.0, "q2": 3.0}), "blank": student({"q1": 0.0, "q2": 0.0})})
    gpu = report(
        "gpu",
        {
            "reference": student(
                {"q1": 3.0, "q2": 0.0}, {"q2": ["test_train_epoch: Expected all tensors to be on the same device"]}
            ),
            "blank": student({"q1": 0.0, "q2": 0.0}),
        },
    )
    rows, summaries = bench.differences(cpu, gpu)
    assert [(r["student"], r["question"], r["a"], r["b"], r["max"]) for r in rows] == [
        ("reference", "q2", 3.0, 0.0, 3.0)
    ]
    assert "same device" in rows[0]["why"]
    assert summaries == [
        {
            "assignment": "transformers",
            "door": "standalone",
            "students": 2,
            "students_changed": 1,
            "total_a": 6.0,
            "total_b": 3.0,
        }
    ]
    text, same = bench.compare_text(cpu, gpu)
    assert not same and "reference" in text and "q2" in text and "same device" in text


def test_a_student_graded_in_one_run_only_is_reported_and_unshared_doors_are_skipped():
    bench = load_benchmark()
    a = report("a", {"reference": student({"q1": 3.0})})
    b = report("b", {"reference": student({"q1": 3.0}), "hostile-os_exit": student({"q1": 0.0})})
    b["assignments"]["transformers"]["nbgrader"] = {"students": {"reference": student({"q1": 0.0})}}
    rows, summaries = bench.differences(a, b)
    assert [(r["student"], r["question"], r["a"]) for r in rows] == [("hostile-os_exit", "*", None)]
    assert [s["door"] for s in summaries] == ["standalone"], "a door only one run graded is not compared"


def test_the_control_reveals_accelerators_only_while_it_runs():
    bench = load_benchmark()
    from assignments.grading.environment import GRADING_ENV

    before = dict(GRADING_ENV)
    assert GRADING_ENV["CUDA_VISIBLE_DEVICES"] == "", "the default must hide CUDA"
    with bench.accelerators_visible(ld_library_path=False):
        assert not set(bench.ACCELERATOR_VARIABLES) & set(GRADING_ENV)
    assert GRADING_ENV == before
