"""sequence_logprob_tests: the continuation's log-probability, scored one position earlier, prompt and padding out.

The oracle is plain Python in float64 on the grader's side (oracles.continuation_logprob): for each row, each
counted position t, log(exp(logits[t - 1, id]) / sum of exp(logits[t - 1])) after subtracting the row's maximum,
written from the skeleton's words, not from the notebook's tensor code.
"""

import torch

from assignments.grading.testkit import behaviour, expect, expect_close, expect_shape, question
from autograder.transfer_lm.oracles import continuation_logprob

# batch 4, seq 9, vocabulary 11: a prompt of 1 (the shortest), a full row, an empty continuation, a padded row.
BATCH, SEQ, NTOKEN = 4, 9, 11
PROMPTS, LENGTHS = [1, 3, 5, 2], [9, 9, 5, 6]
CALL = "out = sequence_logprob(logits, ids, prompt_lengths, lengths)\nresult = out"


def _inputs(seed, batch=BATCH, seq=SEQ, ntoken=NTOKEN, prompts=PROMPTS, lengths=LENGTHS, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    logits = (3 * torch.randn(batch, seq, ntoken, generator=g)).to(dtype)
    ids = torch.randint(0, ntoken, (batch, seq), generator=g)
    for b, n in enumerate(lengths):
        ids[b, n:] = 0  # padding
    return logits, ids, torch.tensor(prompts), torch.tensor(lengths)


def _counted(prompts, lengths, seq):
    """(batch, seq) bool: the logits positions j that score a continuation token (prompt - 1 <= j < length - 1)."""
    counts = torch.zeros(len(prompts), seq, dtype=torch.bool)
    for b, (p, n) in enumerate(zip(prompts, lengths)):
        counts[b, p - 1 : n - 1] = True
    return counts


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "the sum of the continuation's log-softmax values, scored one position earlier",
    mutant="seqlp_no_shift",
)
def test_matches_the_oracle_in_float64(student):
    for seed in (0, 1):
        logits, ids, prompts, lengths = _inputs(seed)
        out = student.run(CALL, logits=logits, ids=ids, prompt_lengths=prompts, lengths=lengths)
        out = expect_shape(out, (BATCH,), "sequence_logprob's result")
        expect(out.dtype == torch.float64, f"float64 logits should give a float64 result; got {out.dtype}")
        expected = continuation_logprob(logits, ids, PROMPTS, LENGTHS)
        expect_close(out, expected, "the continuations' log-probabilities", atol=1e-9, rtol=1e-9)


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "prompt and padding positions count for nothing, in value and in gradient",
    mutant="seqlp_prompt_counts",
)
def test_positions_that_do_not_count_change_nothing(student):
    logits, ids, prompts, lengths = _inputs(2)
    counts = _counted(PROMPTS, LENGTHS, SEQ)
    noise = 40 * torch.randn(BATCH, SEQ, NTOKEN, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    noisy = torch.where(counts[..., None], logits, logits + noise)
    out = student.run(
        "x = logits.clone().requires_grad_(True)\n"
        "out = sequence_logprob(x, ids, prompt_lengths, lengths)\n"
        "out.sum().backward()\n"
        "result = {'out': out.detach(), 'grad': x.grad}",
        logits=noisy,
        ids=ids,
        prompt_lengths=prompts,
        lengths=lengths,
    )
    expected = continuation_logprob(logits, ids, PROMPTS, LENGTHS)
    expect_close(
        expect_shape(out["out"], (BATCH,), "the result"),
        expected,
        "the result with other logits at prompt, padding and last positions",
        atol=1e-9,
        rtol=1e-9,
    )
    grad = out["grad"]
    expect(isinstance(grad, torch.Tensor), "no gradient reached the logits: keep the graph")
    grad = expect_shape(grad, (BATCH, SEQ, NTOKEN), "the logits' gradient")
    expect(grad[~counts].abs().max().item() == 0, "logits at prompt, padding or last positions got a gradient")
    # d out[b] / d logits[b, t - 1] = onehot(ids[b, t]) - softmax(logits[b, t - 1]) at each counted position.
    want = torch.zeros_like(logits)
    for b in range(BATCH):
        for j in range(SEQ):
            if counts[b, j]:
                want[b, j] = -torch.softmax(logits[b, j], dim=-1)
                want[b, j, ids[b, j + 1]] += 1
    expect_close(grad, want, "the gradient with respect to the counted logits", atol=1e-9, rtol=1e-9)


@question("sequence_logprob_tests")
@behaviour("sequence_logprob", "a batch of one keeps its batch axis", mutant="seqlp_squeeze_all", kind="batch-of-one")
def test_one_row_and_float32(student):
    logits, ids, prompts, lengths = _inputs(4, batch=1, seq=7, prompts=[2], lengths=[6], dtype=torch.float32)
    out = student.run(CALL, logits=logits, ids=ids, prompt_lengths=prompts, lengths=lengths)
    out = expect_shape(out, (1,), "the result for one row")
    expect(out.dtype == torch.float32, f"float32 logits should give a float32 result; got {out.dtype}")
    expect_close(
        out.double(), continuation_logprob(logits.double(), ids, [2], [6]), "one row's sum", atol=1e-4, rtol=1e-5
    )


OUT_OF_SCOPE = []
CONTRACT_PARAMETERS = []
