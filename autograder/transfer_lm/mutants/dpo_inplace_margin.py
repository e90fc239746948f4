"""Builds the margin in place in the policy's chosen tensor, changing the caller's log-probabilities.

question: dpo_loss_tests
replaces: dpo_loss
contract: do not modify the inputs
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = policy_chosen.sub_(reference_chosen.detach()).sub_(policy_rejected - reference_rejected.detach())
    return -F.logsigmoid(beta * margin).mean()
