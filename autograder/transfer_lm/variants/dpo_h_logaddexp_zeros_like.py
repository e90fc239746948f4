"""Writes -log(sigmoid(x)) as softplus(-x) = logaddexp(0, -x), with the zeros made by torch.zeros_like (so in
the inputs' dtype and on their device), and averages with sum() / numel().

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    x = beta * ((policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach()))
    terms = torch.logaddexp(torch.zeros_like(x), -x)
    return terms.sum() / terms.numel()
