"""Takes the log of the sigmoid in two steps, which is -inf once the sigmoid rounds to 0.

question: dpo_loss_tests
replaces: dpo_loss
contract: finite at beta * margin of -1000
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    return -torch.log(torch.sigmoid(beta * margin)).mean()
