"""Computes the implicit rewards beta * log-ratio of chosen and rejected first, as the DPO paper presents them,
then the log-sigmoid of their difference.

question: dpo_loss_tests
replaces: dpo_loss
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    chosen_reward = beta * (policy_chosen - reference_chosen.detach())
    rejected_reward = beta * (policy_rejected - reference_rejected.detach())
    return torch.mean(-torch.nn.functional.logsigmoid(chosen_reward - rejected_reward))
