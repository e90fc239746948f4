"""Leaves the reference out: the margin is the policy's chosen minus rejected log-probability.

question: dpo_loss_tests
replaces: dpo_loss
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = policy_chosen - policy_rejected
    return -F.logsigmoid(beta * margin).mean()
