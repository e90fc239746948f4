"""Maximises the sigmoid itself instead of its log.

question: dpo_loss_tests
replaces: dpo_loss
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    return -torch.sigmoid(beta * margin).mean()
