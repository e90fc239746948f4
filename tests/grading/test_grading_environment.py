"""``assignments/grading/environment.py``: the environment every graded run gets, in every door (the
install files' environment is tests/project/test_environment.py's)."""

from assignments.grading.environment import GRADING_ENV, kernel_environment_for_nbgrader


def test_graded_runs_are_offline_on_the_cpu_without_progress_bars():
    assert GRADING_ENV["NBGRADER_EXECUTION"] == "autograde"
    assert {GRADING_ENV[k] for k in ["HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"]} == {"1"}
    assert GRADING_ENV["TQDM_DISABLE"] == "1"
    assert GRADING_ENV["CUDA_VISIBLE_DEVICES"] == GRADING_ENV["HIP_VISIBLE_DEVICES"] == ""
    assert GRADING_ENV["ROCR_VISIBLE_DEVICES"] == "" and GRADING_ENV["PYTORCH_MPS_DISABLE"] == "1"
    assert all(isinstance(value, str) for value in GRADING_ENV.values())  # usable as os.environ values


def test_the_nbgrader_kernels_get_all_but_the_flag_nbgrader_sets_itself():
    inherited = kernel_environment_for_nbgrader()
    assert inherited == {k: v for k, v in GRADING_ENV.items() if k != "NBGRADER_EXECUTION"}
    inherited["HF_HUB_OFFLINE"] = "0"
    assert GRADING_ENV["HF_HUB_OFFLINE"] == "1", "a caller's copy must not change the shared dict"
