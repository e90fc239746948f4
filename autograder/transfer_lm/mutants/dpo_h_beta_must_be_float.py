"""Validates beta as a positive float (isinstance(beta, float)) and raises a ValueError otherwise, so an int
beta such as 1 or 2, which the docstring allows, is refused.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
stated: beta may be an int or a float
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    if not isinstance(beta, float) or beta <= 0:
        raise ValueError(f"beta must be a positive float, got {beta!r}")
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    return -F.logsigmoid(beta * margin).mean()
