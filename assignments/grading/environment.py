"""The environment every graded run of a notebook gets, in every door: the one place that says what it is.

- ``NBGRADER_EXECUTION``: the one flag the notebooks read to shrink their heavy cells (nbgrader sets it
  itself when it runs a notebook, so the nbgrader door takes the rest of this dict without it);
- the Hugging Face libraries stay offline: graded notebooks build their local fallbacks, never download;
- no progress bars in graded output;
- no accelerator: the contracts move tensors to the notebook's ``DEVICE``, which would be CUDA on a GPU
  host while the hidden tests build their models on the CPU (issue #10), so grading is on the CPU by
  construction, whatever the grading machine has (the tests' own computations in the grader as well:
  ``testkit.suite.cpu_only_torch``).
"""

GRADING_ENV = {
    "NBGRADER_EXECUTION": "autograde",
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TQDM_DISABLE": "1",
    "CUDA_VISIBLE_DEVICES": "",
    "HIP_VISIBLE_DEVICES": "",
    "ROCR_VISIBLE_DEVICES": "",
    "PYTORCH_MPS_DISABLE": "1",
}


def kernel_environment_for_nbgrader() -> dict[str, str]:
    """What the nbgrader door's kernels inherit (nbgrader_config.py applies it): all but the flag nbgrader
    sets itself, with the value of the command that runs (autograde, validate)."""
    return {key: value for key, value in GRADING_ENV.items() if key != "NBGRADER_EXECUTION"}
