"""Averages with keepdim=True, so the loss has shape (1,) instead of being 0-dim.

question: dpo_loss_tests
replaces: dpo_loss
contract: returns a 0-dim tensor
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    return -F.logsigmoid(beta * margin).mean(dim=0, keepdim=True)
