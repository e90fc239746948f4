"""lm_batches_tests: make_lm_chunks cuts windows and shifts the targets by one token."""

import torch

from assignments.grading.testkit import behaviour, expect, expect_shape, question


def _expected(ids, seq_len):
    n = (len(ids) - 1) // seq_len
    return (
        [ids[k * seq_len : (k + 1) * seq_len] for k in range(n)],
        [ids[k * seq_len + 1 : (k + 1) * seq_len + 1] for k in range(n)],
    )


def _check(student, ids, seq_len):
    out = student.run(
        "before = ids.clone()\n"
        "inputs, targets = make_lm_chunks(ids, seq_len)\n"
        "result = {'inputs': inputs, 'targets': targets, 'untouched': bool(torch.equal(ids, before))}",
        ids=ids,
        seq_len=seq_len,
    )
    want_inputs, want_targets = _expected(ids.tolist(), seq_len)
    n = len(want_inputs)
    what = f"for {len(ids)} ids and seq_len {seq_len}"
    inputs = expect_shape(out["inputs"], (n, seq_len), f"inputs {what}")
    targets = expect_shape(out["targets"], (n, seq_len), f"targets {what}")
    expect(inputs.dtype == torch.long and targets.dtype == torch.long, "inputs and targets should stay LongTensors")
    expect(inputs.tolist() == want_inputs, f"inputs {what}: row k should be ids[k*seq_len : (k+1)*seq_len]")
    if targets.tolist() == inputs.tolist():
        expect(False, f"targets {what} equal the inputs; targets[k, t] must be the token AFTER inputs[k, t]")
    expect(targets.tolist() == want_targets, f"targets {what}: row k should be the input window moved one token later")
    expect(out["untouched"], "make_lm_chunks modified the ids it was given")


@question("lm_batches_tests")
@behaviour("make_lm_chunks", "windows and targets shifted by one token", mutant="targets_not_shifted")
def test_windows_and_shifted_targets(student):
    g = torch.Generator().manual_seed(4)
    _check(student, torch.randint(0, 50, (23,), generator=g), 5)  # 22 // 5 = 4 windows, 2 tokens dropped


@question("lm_batches_tests")
@behaviour(
    "make_lm_chunks",
    "(len(ids) - 1) // seq_len windows: an exact fit keeps its last window",
    mutant="chunks_one_window_short",
)
def test_exact_fit_and_single_window(student):
    g = torch.Generator().manual_seed(8)
    _check(student, torch.randint(0, 50, (22,), generator=g), 7)  # 21 // 7 = 3 windows, nothing dropped
    _check(student, torch.randint(0, 50, (10,), generator=g), 9)  # exactly one window


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "make_lm_chunks",
        "ids left unchanged; int64 kept",
        "Slicing and view cannot change ids or their dtype and no plausible answer does otherwise, so the tests' checks of both have no mutant.",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("make_lm_chunks", "ids", "23 ids, 22 ids, 10 ids", None),
    ("make_lm_chunks", "seq_len", "5, 7, 9", None),
]
