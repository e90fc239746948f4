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
        "try:\n"
        "    inputs, targets = make_lm_chunks(ids, seq_len)\n"
        "    result = {'inputs': inputs, 'targets': targets, 'untouched': bool(torch.equal(ids, before))}\n"
        "except Exception:\n"
        "    result = None\n",
        ids=ids,
        seq_len=seq_len,
    )
    want_inputs, want_targets = _expected(ids.tolist(), seq_len)
    n = len(want_inputs)
    what = f"for {len(ids)} ids and seq_len {seq_len}"
    expect(
        out is not None,
        f"make_lm_chunks raised an error {what}, where nchunks = ({len(ids)} - 1) // {seq_len} = {n}"
        + (": with no whole window, return two empty LongTensors of shape (0, seq_len)" if n == 0 else ""),
    )
    inputs = expect_shape(out["inputs"], (n, seq_len), f"inputs {what}")
    targets = expect_shape(out["targets"], (n, seq_len), f"targets {what}")
    expect(inputs.dtype == torch.long and targets.dtype == torch.long, "inputs and targets should stay LongTensors")
    expect(inputs.tolist() == want_inputs, f"inputs {what}: row k should be ids[k*seq_len : (k+1)*seq_len]")
    if n and targets.tolist() == inputs.tolist():
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
@behaviour(
    "make_lm_chunks",
    "exact boundary: len(ids) - 1 a multiple of seq_len keeps its last window",
    mutant="chunks_one_window_short",
    kind="boundary",
)
@behaviour(
    "make_lm_chunks",
    "degenerate: ids too short for one window give (0, seq_len) tensors, not an error",
    mutant="chunks_stack_windows",
    kind="degenerate",
)
def test_exact_fit_and_single_window(student):
    g = torch.Generator().manual_seed(8)
    _check(student, torch.randint(0, 50, (22,), generator=g), 7)  # 21 // 7 = 3 windows, nothing dropped
    _check(student, torch.randint(0, 50, (10,), generator=g), 9)  # exactly one window
    _check(student, torch.randint(0, 50, (7,), generator=g), 7)  # 6 // 7 = 0: no window has its next tokens


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "make_lm_chunks",
        "ids left unchanged; int64 kept",
        "Slicing and view cannot change ids or their dtype and no plausible answer does otherwise, so the tests' checks of both have no mutant.",
    ),
    (
        "make_lm_chunks",
        "randomness",
        "It draws no random number: the windows come in the stream's order.",
        "randomness",
    ),
    (
        "make_lm_chunks",
        "validation order",
        "It checks no argument and has no special case: nchunks = 0 comes from the same formula.",
        "validation-order",
    ),
    ("make_lm_chunks", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "make_lm_chunks",
        "state across calls",
        "A pure function of its arguments: it keeps nothing between calls.",
        "state",
    ),
    (
        "make_lm_chunks",
        "device of what it makes",
        "The notebook cuts the token stream on the CPU and train_lm moves each batch to the model's device, so where the windows live is no part of the contract.",
        "device",
    ),
    (
        "make_lm_chunks",
        "hyper-parameters that are not whole numbers",
        "seq_len is a count of tokens, always a whole number.",
        "non-integer",
    ),
    ("make_lm_chunks", "optimisation steps", "It takes no optimisation step.", "step-tolerance"),
    (
        "make_lm_chunks",
        "a batch of one",
        "It takes one 1-D stream, not a batch; the output with a single window, (1, 9), is checked in test_exact_fit_and_single_window.",
        "batch-of-one",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("make_lm_chunks", "ids", "23 ids, 22 ids, 10 ids, 7 ids (no whole window)", None),
    ("make_lm_chunks", "seq_len", "5, 7, 9", None),
]
