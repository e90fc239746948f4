"""Spells out the stable form max(-x, 0) + log1p(exp(-|x|)), with max(-x, 0) written as (|x| - x) / 2, and
averages with a sum divided by the number of pairs.

Corrected in blind hunt 2026-12-h: it wrote max(-x, 0) as torch.clamp(-x, min=0), whose slope torch takes as -1 at
x = 0 while abs's is 0 there, so a margin of exactly 0 got twice the formula's gradient (the hunt's mutant
dpo_h_clamp_abs_wrong_grad_at_start). (|x| - x) / 2 has slope -1/2 at 0, the formula's.

question: dpo_loss_tests
replaces: dpo_loss
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    x = beta * ((policy_chosen - policy_rejected) - (reference_chosen - reference_rejected).detach())
    terms = (x.abs() - x) / 2 + torch.log1p(torch.exp(-x.abs()))
    return terms.sum() / x.numel()
