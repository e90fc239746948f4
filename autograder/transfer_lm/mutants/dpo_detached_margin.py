"""Detaches the whole margin to keep the reference out of the graph, and the policy with it.

question: dpo_loss_tests
replaces: dpo_loss
contract: no gradient may reach the reference, and the loss trains the policy
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = ((policy_chosen - reference_chosen) - (policy_rejected - reference_rejected)).detach()
    return -F.logsigmoid(beta * margin).mean()
