"""Spells out the stable form max(-x, 0) + log1p(exp(-|x|)) and averages with a sum divided by the number of
pairs.

question: dpo_loss_tests
replaces: dpo_loss
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    x = beta * ((policy_chosen - policy_rejected) - (reference_chosen - reference_rejected).detach())
    terms = torch.clamp(-x, min=0) + torch.log1p(torch.exp(-x.abs()))
    return terms.sum() / x.numel()
