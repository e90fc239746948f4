"""Leaves the reference's log-probabilities in the graph (they came from a frozen model, so why detach?).

question: dpo_loss_tests
replaces: dpo_loss
contract: no gradient may reach the reference log-probabilities
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen) - (policy_rejected - reference_rejected)
    return -F.logsigmoid(beta * margin).mean()
