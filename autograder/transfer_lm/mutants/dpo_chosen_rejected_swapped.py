"""Writes the margin the other way round, rejected minus chosen, so training prefers the rejected continuations.

question: dpo_loss_tests
replaces: dpo_loss
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_rejected - reference_rejected.detach()) - (policy_chosen - reference_chosen.detach())
    return -F.logsigmoid(beta * margin).mean()
