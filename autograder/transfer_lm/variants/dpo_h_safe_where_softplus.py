"""Writes the stable -log(sigmoid(x)) by hand with the two-branch form: log1p(exp(-x)) for x >= 0 and
-x + log1p(exp(x)) for x < 0, each branch's exp fed a clamped argument so the branch torch.where does not
pick stays finite (and so does its gradient); the gradient at x = 0 is the true -1/2.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    x = beta * ((policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach()))
    positive = torch.log1p(torch.exp(-x.clamp(min=0)))
    negative = -x + torch.log1p(torch.exp(x.clamp(max=0)))
    return torch.where(x >= 0, positive, negative).mean()
