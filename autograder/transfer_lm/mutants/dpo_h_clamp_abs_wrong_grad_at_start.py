"""Writes log(sigmoid(x)) by hand as min(x, 0) - log1p(exp(-|x|)) with x.clamp(max=0) and x.abs(): the values
are right, but at x = 0 the clamp passes a gradient of 1 and abs a gradient of 0, so a pair with margin 0 gets
twice the true gradient (-beta instead of -beta / 2 for policy_chosen, over the number of pairs).

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
stated: The gradient is the formula's everywhere, at a margin of exactly 0 too
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    x = beta * margin
    return -(x.clamp(max=0) - torch.log1p(torch.exp(-x.abs()))).mean()
