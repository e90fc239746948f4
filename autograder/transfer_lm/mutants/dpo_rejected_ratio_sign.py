"""Flips the rejected log-ratio: subtracts the policy from the reference for the rejected continuation.

question: dpo_loss_tests
replaces: dpo_loss
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (reference_rejected.detach() - policy_rejected)
    return -F.logsigmoid(beta * margin).mean()
