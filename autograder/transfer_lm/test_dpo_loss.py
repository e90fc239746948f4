"""dpo_loss_tests: Rafailov et al.'s DPO loss against a float64 oracle, its properties and its gradient.

The oracle (oracles.dpo_oracle) is plain Python on floats: for each pair -log(sigmoid(beta * margin)) as
max(-x, 0) + log1p(exp(-|x|)), averaged over the pairs.
"""

import math

import torch

from assignments.grading.testkit import behaviour, expect, expect_close, question
from autograder.transfer_lm.oracles import dpo_oracle

CALL = "result = dpo_loss(pc, pr, rc, rr, beta)"


def _four(seed, pairs=6, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return [(-20 + 5 * torch.randn(pairs, generator=g)).to(dtype) for _ in range(4)]


@question("dpo_loss_tests")
@behaviour("dpo_loss", "the mean over pairs of -log sigmoid(beta * margin)", mutant="dpo_sum_not_mean")
def test_matches_the_oracle(student):
    for seed, beta in ((0, 0.1), (1, 0.5), (2, 2.5)):
        pc, pr, rc, rr = _four(seed)
        out = student.run(CALL, pc=pc, pr=pr, rc=rc, rr=rr, beta=beta)
        expect(isinstance(out, torch.Tensor) and out.dim() == 0, "dpo_loss should return a 0-dim tensor")
        expect_close(
            out,
            torch.tensor(dpo_oracle(pc, pr, rc, rr, beta), dtype=torch.float64),
            f"the loss at beta {beta}",
            atol=1e-12,
            rtol=1e-12,
        )


@question("dpo_loss_tests")
@behaviour(
    "dpo_loss",
    "the gradient raises the chosen, lowers the rejected, and never reaches the reference",
    mutant="dpo_reference_not_detached",
)
def test_gradient(student):
    pc, pr, rc, rr = _four(3)
    beta = 0.5
    out = student.run(
        "xs = [t.clone().requires_grad_(True) for t in (pc, pr, rc, rr)]\n"
        "dpo_loss(*xs, beta).backward()\n"
        "result = [x.grad for x in xs]",
        pc=pc,
        pr=pr,
        rc=rc,
        rr=rr,
        beta=beta,
    )
    margins = ((pc - rc) - (pr - rr)).tolist()
    want = torch.tensor([-beta / (1 + math.exp(beta * m)) / len(margins) for m in margins], dtype=torch.float64)
    expect(isinstance(out[0], torch.Tensor) and isinstance(out[1], torch.Tensor), "no gradient reached the policy")
    expect_close(out[0], want, "the gradient with respect to policy_chosen", atol=1e-12, rtol=1e-9)
    expect_close(out[1], -want, "the gradient with respect to policy_rejected", atol=1e-12, rtol=1e-9)
    expect(
        all(g is None or g.abs().max().item() == 0 for g in out[2:]),
        "a gradient reached the reference's log-probabilities: they are constants (detach them)",
    )


@question("dpo_loss_tests")
@behaviour("dpo_loss", "stable at large margins", mutant="dpo_log_sigmoid", kind="degenerate")
def test_large_margins(student):
    pc = torch.tensor([0.0, 1000.0, -3000.0, 0.0])
    pr = torch.tensor([1000.0, 0.0, 0.0, 0.0])
    zeros = torch.zeros(4)
    out = student.run(CALL, pc=pc, pr=pr, rc=zeros, rr=zeros, beta=1.0)
    expect(isinstance(out, torch.Tensor) and bool(torch.isfinite(out)), "the loss is not finite at large margins")
    expect_close(
        out.double(),
        torch.tensor(dpo_oracle(pc, pr, zeros, zeros, 1.0), dtype=torch.float64),
        "the loss at margins of -1000, +1000, -3000 and 0",
        atol=1e-3,
        rtol=1e-6,
    )


OUT_OF_SCOPE = []
CONTRACT_PARAMETERS = []
