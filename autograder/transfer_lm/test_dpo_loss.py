"""dpo_loss_tests: Rafailov et al. (2023)'s DPO loss against a float64 oracle, its properties and its gradient.

The oracle (oracles.dpo_oracle) is plain Python on floats: for each pair, with x = beta * margin,
-log(sigmoid(x)) = max(-x, 0) + log1p(exp(-|x|)), averaged over the pairs. The properties: ln 2 when the policy
equals the reference, whatever beta; the gradient raises the chosen and lowers the rejected log-probability, and
reaches no reference term; beta scales the margin inside the sigmoid; stable for margins of thousands; and one
step through the stand-in sequence_logprob leaves the prompt's logits where they were.
"""

import math

import torch

from assignments.grading.testkit import behaviour, expect, expect_close, question
from autograder.transfer_lm.oracles import continuation_logprob, dpo_oracle

CALL = "result = dpo_loss(pc, pr, rc, rr, beta)"


def _four(seed, pairs=6, dtype=torch.float64):
    """Sequence log-probabilities of the size the notebook's continuations have (around -20), and margins of a few
    nats either way: policy chosen, policy rejected, reference chosen, reference rejected."""
    g = torch.Generator().manual_seed(seed)
    return [(-20 + 5 * torch.randn(pairs, generator=g)).to(dtype) for _ in range(4)]


def _oracle(four, beta):
    return torch.tensor(dpo_oracle(*four, beta), dtype=torch.float64)


def _is_scalar_tensor(out):
    return isinstance(out, torch.Tensor) and out.dim() == 0


@question("dpo_loss_tests")
@behaviour("dpo_loss", "the mean over pairs, not the sum", mutant="dpo_sum_not_mean")
@behaviour("dpo_loss", "chosen and rejected in the right order", mutant="dpo_chosen_rejected_swapped")
@behaviour(
    "dpo_loss", "the reference's log-ratios subtracted, each with its own sign", mutant="dpo_rejected_ratio_sign"
)
@behaviour("dpo_loss", "the reference terms are part of the margin", mutant="dpo_no_reference")
@behaviour("dpo_loss", "-log sigmoid, not -sigmoid", mutant="dpo_sigmoid_not_log")
@behaviour("dpo_loss", "beta inside the sigmoid, not outside the log", mutant="dpo_beta_outside")
@behaviour(
    "dpo_loss",
    "non-integer beta: 0.1, 0.5 and 2.5, where beta's place shows (at beta = 1 dividing and multiplying agree)",
    mutant="dpo_beta_divides",
    kind="non-integer",
)
def test_matches_the_oracle(student):
    for seed, beta in ((0, 0.1), (1, 0.5), (2, 2.5)):
        four = _four(seed)
        out = student.run(CALL, pc=four[0], pr=four[1], rc=four[2], rr=four[3], beta=beta)
        expect(_is_scalar_tensor(out), "dpo_loss should return a 0-dim tensor: the mean over the pairs")
        expect(out.dtype == torch.float64, f"float64 inputs should give a float64 loss; got {out.dtype}")
        expect_close(out, _oracle(four, beta), f"the loss of 6 pairs at beta {beta}", atol=1e-12, rtol=1e-12)


@question("dpo_loss_tests")
@behaviour(
    "dpo_loss",
    "beta multiplies the margin: beta with every log-probability divided by beta gives the loss at beta 1",
    mutant="dpo_beta_outside",
)
def test_beta_scales_the_margin(student):
    four = _four(11)
    at_one = student.run(CALL, pc=four[0], pr=four[1], rc=four[2], rr=four[3], beta=1.0)
    for beta in (0.25, 4.0):
        scaled = [t / beta for t in four]
        out = student.run(CALL, pc=scaled[0], pr=scaled[1], rc=scaled[2], rr=scaled[3], beta=beta)
        expect(_is_scalar_tensor(out) and _is_scalar_tensor(at_one), "dpo_loss should return a 0-dim tensor")
        expect_close(
            out,
            at_one,
            f"the loss at beta {beta} with every log-probability divided by {beta} (beta multiplies the margin "
            "inside the sigmoid, so it should equal the loss at beta 1)",
            atol=1e-12,
            rtol=1e-12,
        )


@question("dpo_loss_tests")
@behaviour(
    "dpo_loss",
    "degenerate: ln 2 when the policy equals the reference, whatever beta and however the pairs differ",
    mutant="dpo_no_reference",
    kind="degenerate",
)
def test_ln2_when_the_policy_is_the_reference(student):
    for seed, beta, dtype in ((3, 0.1, torch.float64), (4, 1, torch.float64), (5, 7.5, torch.float32)):
        chosen, rejected, _, _ = _four(seed, pairs=5, dtype=dtype)
        out = student.run(CALL, pc=chosen, pr=rejected, rc=chosen.clone(), rr=rejected.clone(), beta=beta)
        expect(_is_scalar_tensor(out), "dpo_loss should return a 0-dim tensor")
        expect_close(
            out.double(),
            torch.tensor(math.log(2), dtype=torch.float64),
            f"the loss with the policy equal to the reference ({dtype}, beta {beta})",
            atol=1e-6 if dtype == torch.float32 else 1e-12,
            rtol=0,
        )


@question("dpo_loss_tests")
@behaviour("dpo_loss", "no gradient reaches the reference's log-probabilities", mutant="dpo_reference_not_detached")
@behaviour("dpo_loss", "the policy's terms keep their graph", mutant="dpo_detached_margin")
@behaviour("dpo_loss", "the gradient raises the chosen and lowers the rejected", mutant="dpo_chosen_rejected_swapped")
def test_gradient(student):
    four = _four(6)
    beta = 0.5
    out = student.run(
        "xs = [t.clone().requires_grad_(True) for t in (pc, pr, rc, rr)]\n"
        "loss = dpo_loss(*xs, beta)\n"
        "if isinstance(loss, torch.Tensor) and loss.requires_grad:\n"
        "    loss.backward()\n"
        "result = [x.grad for x in xs]",
        pc=four[0],
        pr=four[1],
        rc=four[2],
        rr=four[3],
        beta=beta,
    )
    margins = ((four[0] - four[2]) - (four[1] - four[3])).tolist()
    # d loss / d policy_chosen[i] = -beta * sigmoid(-beta * margin[i]) / pairs; the rejected's is its opposite.
    want = torch.tensor([-beta / (1 + math.exp(beta * m)) / len(margins) for m in margins], dtype=torch.float64)
    expect(
        isinstance(out[0], torch.Tensor) and isinstance(out[1], torch.Tensor),
        "no gradient reached the policy's log-probabilities: the loss must keep their graph",
    )
    expect(
        bool((out[0] < 0).all()) and bool((out[1] > 0).all()),
        "a gradient step should raise every chosen log-probability and lower every rejected one",
    )
    expect_close(out[0], want, "the gradient with respect to policy_chosen", atol=1e-12, rtol=1e-9)
    expect_close(out[1], -want, "the gradient with respect to policy_rejected", atol=1e-12, rtol=1e-9)
    expect(
        all(g is None or g.abs().max().item() == 0 for g in out[2:]),
        "a gradient reached the reference's log-probabilities: they are constants (detach them)",
    )


@question("dpo_loss_tests")
@behaviour(
    "dpo_loss",
    "stable at beta * margin of -3000 to +3000, float32 and float64, loss and gradient",
    mutant="dpo_log_sigmoid",
    kind="degenerate",
)
@behaviour(
    "dpo_loss", "stable: log1p(exp(-x)) overflows for a large negative x", mutant="dpo_log1p_exp", kind="boundary"
)
def test_large_margins(student):
    # beta 2: margins of -1500, +500, -1.5 and 0 nats (x = -3000, +1000, -3, 0).
    pc = torch.tensor([0.0, 500.0, -31.5, -7.0])
    pr = torch.tensor([1500.0, 0.0, -30.0, -7.0])
    zeros = torch.zeros(4)
    for dtype in (torch.float32, torch.float64):
        four = [t.to(dtype) for t in (pc, pr, zeros, zeros)]
        out = student.run(
            "xs = [t.clone().requires_grad_(True) for t in (pc, pr, rc, rr)]\n"
            "loss = dpo_loss(*xs, beta)\n"
            "loss.backward()\n"
            "result = {'loss': loss.detach(), 'grads': [xs[0].grad, xs[1].grad]}",
            pc=four[0],
            pr=four[1],
            rc=four[2],
            rr=four[3],
            beta=2.0,
        )
        loss = out["loss"]
        expect(
            _is_scalar_tensor(loss) and bool(torch.isfinite(loss)),
            f"the loss is not finite with beta * margin of -3000 ({dtype}): compute log(sigmoid(x)) stably",
        )
        expect_close(
            loss.double(),
            _oracle(four, 2.0),
            f"the loss at beta * margin -3000, 1000, -3 and 0 ({dtype})",
            atol=1e-3,
            rtol=1e-6,
        )
        expect(
            all(isinstance(g, torch.Tensor) and bool(torch.isfinite(g).all()) for g in out["grads"]),
            f"the gradient is not finite at large margins ({dtype})",
        )


@question("dpo_loss_tests")
@behaviour("dpo_loss", "one pair gives a 0-dim tensor too", mutant="dpo_mean_keepdim", kind="batch-of-one")
def test_one_pair(student):
    four = _four(7, pairs=1)
    out = student.run(CALL, pc=four[0], pr=four[1], rc=four[2], rr=four[3], beta=0.1)
    expect(_is_scalar_tensor(out), "for one pair dpo_loss should return a 0-dim tensor too")
    expect_close(out, _oracle(four, 0.1), "the loss of one pair", atol=1e-12, rtol=1e-12)


@question("dpo_loss_tests")
@behaviour(
    "dpo_loss",
    "device: what it creates follows the inputs' device (the 'meta' device stands in for a GPU)",
    mutant="dpo_bce_cpu_targets",
    kind="device",
)
def test_runs_on_the_inputs_device(student):
    four = _four(8, dtype=torch.float32)
    out = student.run(
        "dpo_loss(pc, pr, rc, rr, beta)  # an answer first (a blank one raises here)\n"
        "try:\n"
        "    out = dpo_loss(*(t.to('meta') for t in (pc, pr, rc, rr)), beta)\n"
        "    result = [str(out.device), tuple(out.shape)]\n"
        "except (NotImplementedError, RuntimeError) as error:\n"
        "    result = ['meta', None] if 'device' not in str(error) else ['another device', None]\n",
        pc=four[0],
        pr=four[1],
        rc=four[2],
        rr=four[3],
        beta=0.1,
    )
    expect(
        isinstance(out, list) and out[:1] == ["meta"],
        "with the inputs on the 'meta' device (a stand-in for a GPU), dpo_loss met a tensor on another device or "
        "returned one: make anything you create like the inputs (torch.ones_like, device=...)",
    )


@question("dpo_loss_tests")
@behaviour(
    "dpo_loss",
    "state: the inputs come back unchanged and a second call gives the same loss",
    mutant="dpo_inplace_margin",
    kind="state",
)
def test_inputs_unchanged(student):
    four = _four(9)
    out = student.run(
        "first = dpo_loss(pc, pr, rc, rr, beta)\n"
        "second = dpo_loss(pc, pr, rc, rr, beta)\n"
        "result = {'first': first, 'second': second, 'after': [pc, pr, rc, rr]}",
        pc=four[0].clone(),
        pr=four[1].clone(),
        rc=four[2].clone(),
        rr=four[3].clone(),
        beta=0.5,
    )
    expect(
        all(
            isinstance(a, torch.Tensor) and a.shape == t.shape and torch.equal(a, t) for a, t in zip(out["after"], four)
        ),
        "dpo_loss changed a log-probability it was given: compute the margin in new tensors",
    )
    for key in ("first", "second"):
        expect(_is_scalar_tensor(out[key]), "dpo_loss should return a 0-dim tensor")
        expect_close(out[key], _oracle(four, 0.5), f"the loss of the {key} of two calls", atol=1e-12, rtol=1e-12)


@question("dpo_loss_tests")
@behaviour(
    "dpo_loss", "dtype: float32 inputs give a float32 loss (not float64 'for accuracy')", mutant="dpo_h_always_float64"
)
@behaviour(
    "dpo_loss",
    "dtype: float16 and bfloat16 inputs give a loss in their dtype (work in float32 if you like, cast back)",
    mutant="dpo_h_half_upcast_not_cast_back",
)
@behaviour(
    "dpo_loss",
    "dtype: a 0-dim float32 accumulator must not turn a half-precision loss into float32",
    mutant="dpo_h_loop_float32_accumulator",
)
def test_the_loss_in_the_inputs_dtype(student):
    # Log-probabilities of a few nats, so that half precision holds them to about 0.01.
    g = torch.Generator().manual_seed(17)
    four = [-4 + torch.rand(5, generator=g, dtype=torch.float64) * 3 for _ in range(4)]
    for dtype, atol in ((torch.float32, 1e-6), (torch.float16, 2e-2), (torch.bfloat16, 5e-2)):
        sent = [t.to(dtype) for t in four]
        out = student.run(CALL, pc=sent[0], pr=sent[1], rc=sent[2], rr=sent[3], beta=1.5)
        expect(_is_scalar_tensor(out), f"dpo_loss should return a 0-dim tensor ({dtype} inputs)")
        expect(out.dtype == dtype, f"{dtype} inputs should give a {dtype} loss; got {out.dtype}")
        expect_close(
            out.double(),
            _oracle([t.double() for t in sent], 1.5),
            f"the loss of 5 pairs in {dtype} at beta 1.5",
            atol=atol,
            rtol=0,
        )


@question("dpo_loss_tests")
@behaviour(
    "dpo_loss",
    "boundaries: at a margin of exactly 0 (the policy equal to the reference) the gradient is -beta / 2 per pair",
    mutant="dpo_h_relu_abs_zero_grad_at_start",
    kind="boundary",
)
@behaviour(
    "dpo_loss",
    "boundaries: a hand-made stable form must not double the gradient at a margin of 0",
    mutant="dpo_h_clamp_abs_wrong_grad_at_start",
    kind="boundary",
)
def test_gradient_at_a_margin_of_zero(student):
    # Pairs 0 and 2 have margin 0 (the policy equals the reference there), pairs 1 and 3 do not.
    pc = torch.tensor([-10.0, -12.0, -7.5, -9.0], dtype=torch.float64)
    pr = torch.tensor([-11.0, -10.0, -6.0, -9.5], dtype=torch.float64)
    rc = torch.tensor([-10.0, -11.0, -7.5, -9.0], dtype=torch.float64)
    rr = torch.tensor([-11.0, -10.5, -6.0, -8.0], dtype=torch.float64)
    for beta in (0.5, 2):
        out = student.run(
            "xs = [t.clone().requires_grad_(True) for t in (pc, pr)]\n"
            "loss = dpo_loss(xs[0], xs[1], rc, rr, beta)\n"
            "loss.backward()\n"
            "result = [x.grad for x in xs]",
            pc=pc,
            pr=pr,
            rc=rc,
            rr=rr,
            beta=beta,
        )
        margins = ((pc - rc) - (pr - rr)).tolist()
        want = torch.tensor([-beta / (1 + math.exp(beta * m)) / 4 for m in margins], dtype=torch.float64)
        expect(all(isinstance(g, torch.Tensor) for g in out), "no gradient reached the policy's log-probabilities")
        expect_close(
            out[0],
            want,
            f"the gradient with respect to policy_chosen at beta {beta}, two of the four pairs at a margin of exactly 0 "
            f"(where it is -beta / 2 / pairs = {-beta / 8:g})",
            atol=1e-12,
            rtol=1e-9,
        )
        expect_close(
            out[1], -want, f"the gradient with respect to policy_rejected at beta {beta}", atol=1e-12, rtol=1e-9
        )


@question("dpo_loss_tests")
@behaviour(
    "dpo_loss",
    "state: the inputs' autograd state is left alone (no detach_() on the caller's references)",
    mutant="dpo_h_detach_inplace",
    kind="state",
)
@behaviour(
    "dpo_loss",
    "state: requires_grad is left as it came; references that are results of a graph are accepted",
    mutant="dpo_h_requires_grad_false",
    kind="state",
)
def test_inputs_autograd_state_unchanged(student):
    four = _four(18, pairs=3)
    out = student.run(
        "report = {}\n"
        "for kind in ('leaf', 'non-leaf'):\n"
        "    xs = [t.clone().requires_grad_(True) for t in (pc, pr, rc, rr)]\n"
        "    sent = xs if kind == 'leaf' else [x * 1.0 for x in xs]\n"
        "    try:\n"
        "        loss = dpo_loss(*sent, beta)\n"
        "        loss.backward()\n"
        "        report[kind] = {\n"
        "            'loss': loss.detach(),\n"
        "            'requires_grad': [t.requires_grad for t in sent],\n"
        "            'grad_fn': [t.grad_fn is not None for t in sent],\n"
        "            'reference_grads': [x.grad for x in xs[2:]],\n"
        "        }\n"
        "    except RuntimeError as error:\n"
        "        report[kind] = str(error)\n"
        "result = report",
        pc=four[0],
        pr=four[1],
        rc=four[2],
        rr=four[3],
        beta=0.5,
    )
    for kind, graph in (("leaf", [False] * 4), ("non-leaf", [True] * 4)):
        got = out[kind]
        expect(
            isinstance(got, dict),
            f"dpo_loss raised with {kind} inputs that require grad: {got!r} (detach with .detach(), which makes a "
            "new tensor, not detach_() or requires_grad_(False) on the caller's tensors)",
        )
        expect(
            got["requires_grad"] == [True] * 4 and got["grad_fn"] == graph,
            f"dpo_loss changed the autograd state of {kind} inputs: requires_grad {got['requires_grad']} and "
            f"grad_fn present {got['grad_fn']} afterwards, instead of {[True] * 4} and {graph} (leave the inputs "
            "as they came)",
        )
        expect(
            all(g is None or g.abs().max().item() == 0 for g in got["reference_grads"]),
            f"a gradient reached the reference's log-probabilities ({kind} inputs)",
        )
        expect_close(got["loss"], _oracle(four, 0.5), f"the loss with {kind} inputs", atol=1e-12, rtol=1e-12)


# One SGD step through sequence_logprob (the stand-in), with the grader's logits as the policy's parameters: 3 pairs
# of rows of 7 tokens, prompts of 2, 3 and 1 tokens, vocabulary 9.
STEP_SNIPPET = """
chosen_logits = chosen_start.clone().requires_grad_(True)
rejected_logits = rejected_start.clone().requires_grad_(True)
optimizer = torch.optim.SGD([chosen_logits, rejected_logits], lr=lr)
policy_chosen = sequence_logprob(chosen_logits, chosen_ids, prompt_lengths, chosen_lengths)
policy_rejected = sequence_logprob(rejected_logits, rejected_ids, prompt_lengths, rejected_lengths)
loss = dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta)
optimizer.zero_grad()
loss.backward()
optimizer.step()
result = {'chosen': chosen_logits.detach(), 'rejected': rejected_logits.detach()}
"""


def _oracle_step(start, ids, prompts, lengths, reference, beta, lr):
    """The same SGD step here, in float64, with the oracle's log-probabilities and autograd."""
    chosen, rejected = (s.clone().requires_grad_(True) for s in start)
    logps = []
    for logits, row_ids, row_lengths in ((chosen, ids[0], lengths[0]), (rejected, ids[1], lengths[1])):
        log_probs = torch.log_softmax(logits, dim=-1)
        logps.append(
            torch.stack(
                [
                    sum(log_probs[b, t - 1, row_ids[b, t]] for t in range(prompts[b], row_lengths[b]))
                    for b in range(len(prompts))
                ]
            )
        )
    margin = (logps[0] - reference[0]) - (logps[1] - reference[1])
    loss = torch.nn.functional.softplus(-beta * margin).mean()
    loss.backward()
    return chosen.detach() - lr * chosen.grad, rejected.detach() - lr * rejected.grad


@question("dpo_loss_tests")
@behaviour(
    "dpo_loss",
    "one SGD step through sequence_logprob matches the oracle's to 0.1% of the step; the prompt's logits stay put",
    mutant="dpo_sum_not_mean",
    kind="step-tolerance",
)
def test_one_step_through_sequence_logprob(student):
    g = torch.Generator().manual_seed(10)
    prompts, lengths = [2, 3, 1], ([7, 5, 6], [6, 7, 4])
    start = [torch.randn(3, 7, 9, generator=g, dtype=torch.float64) for _ in range(2)]
    ids = [torch.randint(0, 9, (3, 7), generator=g) for _ in range(2)]
    reference = [
        continuation_logprob(s + 0.3 * torch.randn(3, 7, 9, generator=g, dtype=torch.float64), i, prompts, n)
        for s, i, n in zip(start, ids, lengths)
    ]
    beta, lr = 0.5, 1.0
    out = student.run(
        STEP_SNIPPET,
        stand_ins=("sequence_logprob",),
        chosen_start=start[0],
        rejected_start=start[1],
        chosen_ids=ids[0],
        rejected_ids=ids[1],
        prompt_lengths=torch.tensor(prompts),
        chosen_lengths=torch.tensor(lengths[0]),
        rejected_lengths=torch.tensor(lengths[1]),
        reference_chosen=reference[0],
        reference_rejected=reference[1],
        beta=beta,
        lr=lr,
    )
    want = _oracle_step(start, ids, prompts, lengths, reference, beta, lr)
    for side, expected, first in (("chosen", want[0], start[0]), ("rejected", want[1], start[1])):
        # Tolerance from the size of the effect: 0.1% of the step's largest move (about 0.05 here), plus 1e-12.
        step = (expected - first).abs().max().item()
        expect_close(
            out[side],
            expected,
            f"the {side} rows' logits after one SGD step on the loss (0.1% of the step allowed)",
            atol=1e-3 * step + 1e-12,
            rtol=0,
        )
        for b, p in enumerate(prompts):
            expect(
                torch.equal(out[side][b, : p - 1], first[b, : p - 1]),
                f"one step moved logits of a prompt position ({side} rows): the prompt must contribute nothing",
            )


OUT_OF_SCOPE = [
    ("dpo_loss", "randomness", "It draws nothing: a deterministic formula.", "randomness"),
    (
        "dpo_loss",
        "validation order",
        "It checks no argument and has no special case: the contract gives a positive beta and equal shapes.",
        "validation-order",
    ),
    ("dpo_loss", "a sort's ties", "It sorts and ranks nothing.", "ties"),
]

# The values these tests call each signature parameter with (autograder/README.md, Contract parameters).
CONTRACT_PARAMETERS = [
    (
        "dpo_loss",
        "policy_chosen",
        "float64 (6,), (5,), (4,) some at a margin of exactly 0, (1,), (3,) through sequence_logprob, (3,) leaf and "
        "non-leaf with requires_grad=True; float32 (5,), (4,), (6,) on the meta device; float32, float16 and "
        "bfloat16 (5,) of -4 to -1",
        None,
    ),
    (
        "dpo_loss",
        "policy_rejected",
        "float64 (6,), (5,), (4,), (1,), (3,) through sequence_logprob, (3,) leaf and non-leaf with "
        "requires_grad=True; float32 (5,), (4,), (6,) on the meta device; float32, float16 and bfloat16 (5,)",
        None,
    ),
    (
        "dpo_loss",
        "reference_chosen",
        "float64 (6,) with requires_grad=True, (5,) equal to the policy's, (4,) zeros, (4,) equal to the policy's "
        "in two pairs, (1,), (3,) constants, (3,) leaf and non-leaf with requires_grad=True; float32 (6,) on meta; "
        "float32, float16 and bfloat16 (5,)",
        None,
    ),
    (
        "dpo_loss",
        "reference_rejected",
        "float64 (6,), (5,) equal to the policy's, (4,) zeros, (4,), (1,), (3,) constants, (3,) leaf and non-leaf "
        "with requires_grad=True; float32 (5,), (4,), (6,) on meta; float32, float16 and bfloat16 (5,)",
        None,
    ),
    ("dpo_loss", "beta", "0.1, 0.25, 0.5, 1, 1.0, 1.5, 2 (an int), 2.0, 2.5, 4.0, 7.5", None),
]
