"""Writes -log(sigmoid(x)) as log1p(exp(-x)), which overflows to inf for a large negative x.

question: dpo_loss_tests
replaces: dpo_loss
contract: finite at beta * margin of -1000
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    return torch.log1p(torch.exp(-beta * margin)).mean()
