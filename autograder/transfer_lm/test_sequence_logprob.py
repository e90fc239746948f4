"""sequence_logprob_tests: the continuation's log-probability, each token scored one position earlier, the prompt
and the padding out.

The oracle (oracles.continuation_logprob) is plain Python in float64 on the grader's side, written from the
skeleton's words: for each row and each counted position t, the score of ids[t] at position t - 1 minus the
log of the sum of the exponentials of that position's scores (after subtracting their maximum).
"""

import torch

from assignments.grading.testkit import behaviour, expect, expect_close, expect_shape, question
from autograder.transfer_lm.oracles import continuation_logprob

# batch 4, seq 9, vocabulary 11: the shortest prompt (1) with the longest continuation, a full row, an empty
# continuation, a padded row: every row's prompt has its own length.
BATCH, SEQ, NTOKEN = 4, 9, 11
PROMPTS, LENGTHS = [1, 3, 5, 2], [9, 9, 5, 6]
CALL = "result = sequence_logprob(logits, ids, prompt_lengths, lengths)"


def _inputs(seed, prompts=PROMPTS, lengths=LENGTHS, seq=SEQ, ntoken=NTOKEN, dtype=torch.float64, pad_ids=0):
    """Seeded logits (scale 3, so log-probabilities differ from raw scores) and ids; the padding holds `pad_ids`
    (0, or the nonzero ids the grader draws when pad_ids is None), and the continuations hold some 0s."""
    g = torch.Generator().manual_seed(seed)
    batch = len(prompts)
    logits = (3 * torch.randn(batch, seq, ntoken, generator=g)).to(dtype)
    ids = torch.randint(1, ntoken, (batch, seq), generator=g)
    for b, (p, n) in enumerate(zip(prompts, lengths)):
        if n - p >= 2:
            ids[b, n - 2] = 0  # the pad id inside a continuation counts like any other id
        if pad_ids is not None:
            ids[b, n:] = pad_ids
    return logits, ids, torch.tensor(prompts), torch.tensor(lengths)


def _counted(prompts, lengths, seq):
    """(batch, seq) bool: the positions j of the logits that score a continuation token (prompt - 1 <= j < length - 1)."""
    counts = torch.zeros(len(prompts), seq, dtype=torch.bool)
    for b, (p, n) in enumerate(zip(prompts, lengths)):
        counts[b, p - 1 : n - 1] = True
    return counts


def _call(student, logits, ids, prompts, lengths):
    return student.run(CALL, logits=logits, ids=ids, prompt_lengths=prompts, lengths=lengths)


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob", "each token scored by the logits one position earlier (the shift)", mutant="seqlp_no_shift"
)
@behaviour("sequence_logprob", "log-softmax over the vocabulary, not raw scores", mutant="seqlp_raw_scores")
@behaviour(
    "sequence_logprob", "log-softmax over the vocabulary axis, not the sequence", mutant="seqlp_softmax_over_seq"
)
@behaviour("sequence_logprob", "each row's own prompt length", mutant="seqlp_first_prompt_length")
@behaviour("sequence_logprob", "padding after lengths[b] counts for nothing", mutant="seqlp_padding_counts")
@behaviour("sequence_logprob", "the prompt's tokens count for nothing", mutant="seqlp_prompt_counts")
@behaviour(
    "sequence_logprob",
    "degenerate: an empty continuation sums to 0 (a mean per token would be 0 / 0)",
    mutant="seqlp_mean_per_token",
    kind="degenerate",
)
@behaviour(
    "sequence_logprob",
    "dtype: float64 logits give float64 sums, to float64 precision",
    mutant="seqlp_float32_cast",
)
def test_matches_the_oracle_in_float64(student):
    for seed in (0, 1):
        logits, ids, prompts, lengths = _inputs(seed)
        out = expect_shape(_call(student, logits, ids, prompts, lengths), (BATCH,), "sequence_logprob's result")
        expect(out.dtype == torch.float64, f"float64 logits should give a float64 result; got {out.dtype}")
        expected = continuation_logprob(logits, ids, PROMPTS, LENGTHS)
        expect_close(
            out,
            expected,
            "the continuations' log-probabilities (rows with prompts of 1, 3, 5 and 2 tokens, one of them with an "
            "empty continuation)",
            atol=1e-9,
            rtol=1e-9,
        )


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "boundaries: the first continuation token (t = prompt_lengths[b]) counts",
    mutant="seqlp_skip_first_token",
    kind="boundary",
)
@behaviour(
    "sequence_logprob",
    "boundaries: the token at t = lengths[b], the first pad, does not count",
    mutant="seqlp_one_past_end",
    kind="boundary",
)
def test_each_boundary_token_alone(student):
    # Rows whose continuation is one token long, at every place it can be: right after a prompt of 1, in the
    # middle, at the last position; and a row whose prompt fills the row. Only the one token may count.
    seq = 6
    prompts, lengths = [1, 3, 5, 6], [2, 4, 6, 6]
    logits, ids, prompts_t, lengths_t = _inputs(5, prompts, lengths, seq=seq, pad_ids=None)
    out = expect_shape(_call(student, logits, ids, prompts_t, lengths_t), (4,), "the result")
    expected = continuation_logprob(logits, ids, prompts, lengths)
    expect_close(
        out,
        expected,
        "the log-probabilities of one-token continuations (the token at t = prompt_lengths[b] counts, the one at "
        "t = lengths[b] does not)",
        atol=1e-9,
        rtol=1e-9,
    )


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "prompt and padding positions count for nothing, in value and in gradient",
    mutant="seqlp_prompt_counts",
)
@behaviour("sequence_logprob", "the graph is kept: the logits get a gradient", mutant="seqlp_detached")
def test_positions_that_do_not_count_change_nothing(student):
    logits, ids, prompts, lengths = _inputs(2)
    counts = _counted(PROMPTS, LENGTHS, SEQ)
    noise = 40 * torch.randn(BATCH, SEQ, NTOKEN, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    noisy = torch.where(counts[..., None], logits, logits + noise)
    out = student.run(
        "x = logits.clone().requires_grad_(True)\n"
        "out = sequence_logprob(x, ids, prompt_lengths, lengths)\n"
        "graph = isinstance(out, torch.Tensor) and out.requires_grad\n"
        "if graph:\n"
        "    out.sum().backward()\n"
        "result = {'out': out.detach() if isinstance(out, torch.Tensor) else out, 'graph': graph, 'grad': x.grad}",
        logits=noisy,
        ids=ids,
        prompt_lengths=prompts,
        lengths=lengths,
    )
    expected = continuation_logprob(logits, ids, PROMPTS, LENGTHS)
    expect_close(
        expect_shape(out["out"], (BATCH,), "the result"),
        expected,
        "the result when the logits of prompt, padding and last positions change by up to about 150",
        atol=1e-9,
        rtol=1e-9,
    )
    expect(
        out["graph"] is True and isinstance(out["grad"], torch.Tensor),
        "the result has no graph back to the logits: DPO back-propagates through it (no .item(), .detach() or "
        "torch.no_grad())",
    )
    grad = expect_shape(out["grad"], (BATCH, SEQ, NTOKEN), "the logits' gradient")
    expect(grad[~counts].abs().max().item() == 0, "logits at prompt, padding or last positions got a gradient")
    # d out[b] / d logits[b, j] = onehot(ids[b, j + 1]) - softmax(logits[b, j]) at each counted position j.
    want = torch.zeros_like(logits)
    for b, j in counts.nonzero().tolist():
        want[b, j] = -torch.softmax(logits[b, j], dim=-1)
        want[b, j, ids[b, j + 1]] += 1
    expect_close(grad, want, "the gradient with respect to the counted logits", atol=1e-9, rtol=1e-9)


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "the ids decide nothing about which positions count: pad ids inside a continuation count, other ids in the "
    "padding do not",
    mutant="seqlp_mask_from_ids",
)
def test_positions_come_from_the_lengths_not_the_ids(student):
    # Continuations full of the pad id 0, padding full of other ids.
    prompts, lengths = [2, 1, 4], [7, 5, 6]
    logits, ids, prompts_t, lengths_t = _inputs(6, prompts, lengths, pad_ids=None)
    ids[0, 3:6] = 0
    ids[1, 1:4] = 0
    out = expect_shape(_call(student, logits, ids, prompts_t, lengths_t), (3,), "the result")
    expect_close(
        out,
        continuation_logprob(logits, ids, prompts, lengths),
        "the sums when continuations hold the pad id 0 and the padding holds other ids (tell the positions apart "
        "by prompt_lengths and lengths alone)",
        atol=1e-9,
        rtol=1e-9,
    )


@question("sequence_logprob_tests")
@behaviour("sequence_logprob", "a batch of one keeps its batch axis", mutant="seqlp_squeeze_all", kind="batch-of-one")
@behaviour("sequence_logprob", "dtype: float32 logits give a float32 result", mutant="seqlp_float64_result")
def test_one_row_in_float32(student):
    logits, ids, prompts, lengths = _inputs(4, prompts=[2], lengths=[6], seq=7, dtype=torch.float32)
    out = expect_shape(_call(student, logits, ids, prompts, lengths), (1,), "the result for one row")
    expect(out.dtype == torch.float32, f"float32 logits should give a float32 result; got {out.dtype}")
    expect_close(
        out.double(), continuation_logprob(logits.double(), ids, [2], [6]), "one row's sum", atol=1e-4, rtol=1e-5
    )


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "degenerate: every continuation empty, or a prompt that fills its row, gives exact zeros",
    mutant="seqlp_mean_per_token",
    kind="degenerate",
)
def test_empty_continuations_give_zero(student):
    prompts, lengths = [1, 4, 8, 3], [1, 4, 8, 3]
    logits, ids, prompts_t, lengths_t = _inputs(7, prompts, lengths, seq=8)
    out = expect_shape(_call(student, logits, ids, prompts_t, lengths_t), (4,), "the result")
    expect(
        bool(torch.isfinite(out).all()) and out.abs().max().item() == 0,
        "rows whose continuation is empty (prompt_lengths[b] == lengths[b]) should give exactly 0",
    )


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "device: what it creates follows the logits' device (the 'meta' device stands in for a GPU)",
    mutant="seqlp_arange_cpu",
    kind="device",
)
def test_runs_on_the_inputs_device(student):
    logits, ids, prompts, lengths = _inputs(8, dtype=torch.float32)
    out = student.run(
        "sequence_logprob(logits, ids, prompt_lengths, lengths)  # an answer first (a blank one raises here)\n"
        "try:\n"
        "    out = sequence_logprob(logits.to('meta'), ids.to('meta'), prompt_lengths.to('meta'), lengths.to('meta'))\n"
        "    result = [str(out.device), tuple(out.shape)]\n"
        "except (NotImplementedError, RuntimeError) as error:\n"
        "    result = ['meta', None] if 'device' not in str(error) else ['another device', None]\n",
        logits=logits,
        ids=ids,
        prompt_lengths=prompts,
        lengths=lengths,
    )
    expect(
        isinstance(out, list) and out[:1] == ["meta"],
        "with every input on the 'meta' device (a stand-in for a GPU), sequence_logprob met a tensor on another "
        "device or returned one: make what you create on logits.device",
    )


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "state: logits and ids come back unchanged, and a second call gives the same sums",
    mutant="seqlp_inplace_normalise",
    kind="state",
)
def test_inputs_unchanged(student):
    logits, ids, prompts, lengths = _inputs(9)
    out = student.run(
        "first = sequence_logprob(logits, ids, prompt_lengths, lengths)\n"
        "second = sequence_logprob(logits, ids, prompt_lengths, lengths)\n"
        "result = {'first': first, 'second': second, 'logits': logits, 'ids': ids, 'prompt_lengths': prompt_lengths,"
        " 'lengths': lengths}",
        logits=logits.clone(),
        ids=ids.clone(),
        prompt_lengths=prompts.clone(),
        lengths=lengths.clone(),
    )
    unchanged = all(
        isinstance(out[name], torch.Tensor) and out[name].shape == sent.shape and torch.equal(out[name], sent)
        for name, sent in (("logits", logits), ("ids", ids), ("prompt_lengths", prompts), ("lengths", lengths))
    )
    expect(
        unchanged, "sequence_logprob changed a tensor it was given (logits, ids or the lengths): work on new tensors"
    )
    expect_close(
        expect_shape(out["second"], (BATCH,), "the second call's result"),
        continuation_logprob(logits, ids, PROMPTS, LENGTHS),
        "a second call on the same inputs",
        atol=1e-9,
        rtol=1e-9,
    )


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "stable where it counts: scores in the hundreds and thousands, positions at levels 4,000 apart, float32 and "
    "float64 (log(softmax) underflows)",
    mutant="seqlp_h_log_of_softmax",
)
@behaviour(
    "sequence_logprob",
    "stable: a hand-made log-sum-exp needs each position's maximum (exp overflows above 88 in float32, 710 in float64)",
    mutant="seqlp_h_naive_logsumexp_rows",
)
@behaviour(
    "sequence_logprob",
    "stable: one maximum per row is not enough when positions lie at different levels",
    mutant="seqlp_h_one_max_per_row",
)
def test_stable_for_large_scores(student):
    # Scores of scale 300, each position shifted by its own level (-2000 .. +2000): every log-softmax is finite.
    g = torch.Generator().manual_seed(11)
    levels = torch.tensor([1000.0, -1000, 300, -300, 0, 2000, -2000, 50, 7], dtype=torch.float64)
    logits = 300 * torch.randn(BATCH, SEQ, NTOKEN, generator=g, dtype=torch.float64) + levels[None, :, None]
    ids = torch.randint(0, NTOKEN, (BATCH, SEQ), generator=g)
    for dtype, atol, rtol in ((torch.float64, 1e-9, 1e-12), (torch.float32, 1e-2, 1e-5)):
        sent = logits.to(dtype)
        out = expect_shape(
            _call(student, sent, ids, torch.tensor(PROMPTS), torch.tensor(LENGTHS)), (BATCH,), "the result"
        )
        expect(
            bool(torch.isfinite(out).all()),
            f"the sums are not finite for scores in the thousands ({dtype}): take the log-softmax stably, each "
            "position with its own maximum (torch.log_softmax)",
        )
        expect_close(
            out.double(),
            continuation_logprob(sent.double(), ids, PROMPTS, LENGTHS),
            f"the sums for scores of scale 300 at position levels from -2000 to +2000 ({dtype})",
            atol=atol,
            rtol=rtol,
        )


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "boundaries: seq 2, a single target position, for 4 rows and for one (squeeze only the gathered axis)",
    mutant="seqlp_h_squeeze_every_dim",
    kind="boundary",
)
def test_seq_of_two(student):
    for prompts, lengths in (([1, 1, 2, 1], [2, 1, 2, 2]), ([1], [2])):
        logits, ids, prompts_t, lengths_t = _inputs(12, prompts, lengths, seq=2, pad_ids=None)
        out = expect_shape(
            _call(student, logits, ids, prompts_t, lengths_t), (len(prompts),), f"the result for {len(prompts)} rows"
        )
        expect_close(
            out,
            continuation_logprob(logits, ids, prompts, lengths),
            f"the sums of {len(prompts)} rows of seq 2 (one target position each)",
            atol=1e-9,
            rtol=1e-9,
        )


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "degenerate: seq 1 or every continuation empty still keeps the graph (zeros with a zero gradient)",
    mutant="seqlp_h_empty_row_zero_on_cpu",
    kind="degenerate",
)
def test_every_continuation_empty_keeps_the_graph(student):
    for seq, prompts in ((1, [1, 1, 1]), (3, [2, 3, 1])):
        logits, ids, prompts_t, lengths_t = _inputs(13, prompts, prompts, seq=seq)
        out = student.run(
            "x = logits.clone().requires_grad_(True)\n"
            "out = sequence_logprob(x, ids, prompt_lengths, lengths)\n"
            "graph = isinstance(out, torch.Tensor) and out.requires_grad\n"
            "if graph:\n"
            "    out.sum().backward()\n"
            "result = {'out': out.detach() if isinstance(out, torch.Tensor) else out, 'graph': graph, 'grad': x.grad}",
            logits=logits,
            ids=ids,
            prompt_lengths=prompts_t,
            lengths=lengths_t,
        )
        zeros = expect_shape(out["out"], (3,), f"the result at seq {seq}")
        expect(
            bool(torch.isfinite(zeros).all()) and zeros.abs().max().item() == 0,
            f"every continuation is empty (seq {seq}): each row should give exactly 0",
        )
        expect(
            out["graph"] is True and isinstance(out["grad"], torch.Tensor) and out["grad"].abs().max().item() == 0,
            f"with every continuation empty (seq {seq}) the result must still keep its graph back to the logits "
            "(a zero gradient): DPO back-propagates through it (build the zeros from the logits, not torch.tensor(0.0))",
        )


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "non-contiguous logits and ids (a slice of a wider vocabulary, transposed buffers): reshape, not view",
    mutant="seqlp_h_flatten_with_view",
)
def test_non_contiguous_inputs(student):
    logits, ids, prompts, lengths = _inputs(14)
    wide = torch.randn(SEQ, BATCH, NTOKEN + 5, generator=torch.Generator().manual_seed(15), dtype=torch.float64)
    wide[..., :NTOKEN] = logits.transpose(0, 1)
    sent_logits = wide.transpose(0, 1)[..., :NTOKEN]  # (batch, seq, ntoken), not contiguous
    sent_ids = ids.t().contiguous().t()  # (batch, seq), strides of a transposed buffer
    assert not sent_logits.is_contiguous() and not sent_ids.is_contiguous() and torch.equal(sent_logits, logits)
    out = student.run(
        "try:\n"
        "    result = sequence_logprob(logits, ids, prompt_lengths, lengths)\n"
        "except RuntimeError as error:\n"
        "    result = str(error)",
        logits=sent_logits,
        ids=sent_ids,
        prompt_lengths=prompts,
        lengths=lengths,
    )
    expect(
        isinstance(out, torch.Tensor),
        "sequence_logprob raised a RuntimeError on non-contiguous logits and ids (a slice, a transposed buffer); "
        "use .reshape, which copies when it must, not .view",
    )
    expect_close(
        expect_shape(out, (BATCH,), "the result"),
        continuation_logprob(logits, ids, PROMPTS, LENGTHS),
        "the sums for non-contiguous logits and ids",
        atol=1e-9,
        rtol=1e-9,
    )


@question("sequence_logprob_tests")
@behaviour(
    "sequence_logprob",
    "state: nothing kept between calls; calls of one shape with other lengths give their own sums",
    mutant="seqlp_h_mask_cached_by_shape",
    kind="state",
)
def test_no_state_between_calls(student):
    logits, ids, _, _ = _inputs(16)
    cases = (([1, 3, 5, 2], [9, 9, 5, 6]), ([4, 1, 2, 7], [6, 8, 2, 9]), ([1, 3, 5, 2], [9, 9, 5, 6]))
    out = student.run(
        "result = [sequence_logprob(logits, ids, torch.tensor(p), torch.tensor(n)) for p, n in cases]",
        logits=logits,
        ids=ids,
        cases=cases,
    )
    for k, ((prompts, lengths), got) in enumerate(zip(cases, out)):
        expect_close(
            expect_shape(got, (BATCH,), f"call {k + 1}'s result"),
            continuation_logprob(logits, ids, prompts, lengths),
            f"call {k + 1} of three on logits and ids of one shape, with prompt_lengths {prompts} and lengths "
            f"{lengths} (each call's sums depend on its own arguments alone)",
            atol=1e-9,
            rtol=1e-9,
        )


OUT_OF_SCOPE = [
    ("sequence_logprob", "randomness", "It draws nothing: a deterministic sum.", "randomness"),
    (
        "sequence_logprob",
        "validation order",
        "It checks no argument; the contract guarantees 1 <= prompt_lengths[b] <= lengths[b] <= seq.",
        "validation-order",
    ),
    ("sequence_logprob", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "sequence_logprob",
        "hyper-parameters that are not whole numbers",
        "It takes no hyper-parameter: tensors and integer lengths.",
        "non-integer",
    ),
    (
        "sequence_logprob",
        "optimisation steps",
        "It takes no step; its gradient is compared exactly with the formula's (test_positions_that_do_not_count_"
        "change_nothing), and dpo_loss_tests takes a step through it.",
        "step-tolerance",
    ),
    (
        "sequence_logprob",
        "scores near float32's limit (1e38 next to -3e38), where a finite score's log-softmax is -inf",
        "The skeleton promises finite scores far from 3e38, so masking by multiplication and picking with a one-hot "
        "product are allowed (variants seqlp_one_hot, seqlp_h_mask_by_multiplying, seqlp_h_one_hot_product).",
    ),
    (
        "sequence_logprob",
        "float16 and bfloat16 logits",
        "The skeleton names float32 and float64; the notebook's models run in float32.",
    ),
]

# The values these tests call each signature parameter with (autograder/README.md, Contract parameters).
CONTRACT_PARAMETERS = [
    (
        "sequence_logprob",
        "logits",
        "float64 (4, 9, 11), (4, 6, 11), (3, 9, 11), (4, 8, 11), (4, 2, 11), (1, 2, 11), (3, 1, 11), (3, 3, 11), "
        "(4, 9, 11) non-contiguous (a slice of a transposed buffer); float32 (1, 7, 11), (4, 9, 11) on the meta "
        "device; float64 and float32 (4, 9, 11) of scale 300 at position levels -2000 to +2000",
        None,
    ),
    (
        "sequence_logprob",
        "ids",
        "(4, 9), (4, 6), (3, 9), (1, 7), (4, 8), (4, 2), (1, 2), (3, 1), (3, 3), (4, 9) with a transposed "
        "buffer's strides: pad id 0 inside continuations, other ids in the padding",
        None,
    ),
    (
        "sequence_logprob",
        "prompt_lengths",
        "[1, 3, 5, 2], [1, 3, 5, 6], [2, 1, 4], [2], [1, 4, 8, 3], [1, 1, 2, 1], [1], [1, 1, 1], [2, 3, 1], "
        "[4, 1, 2, 7] (after [1, 3, 5, 2] in one session, and before it again)",
        None,
    ),
    (
        "sequence_logprob",
        "lengths",
        "[9, 9, 5, 6], [2, 4, 6, 6], [7, 5, 6], [6], [1, 4, 8, 3], [2, 1, 2, 2], [2], [1, 1, 1], [2, 3, 1], "
        "[6, 8, 2, 9]",
        None,
    ),
]
