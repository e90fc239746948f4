"""Treats DPO as binary classification of the preference: F.binary_cross_entropy_with_logits of beta * margin
against a target of ones (torch.ones_like, so the inputs' dtype and device), whose default mean reduction is
the mean over the pairs.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = policy_chosen - policy_rejected - reference_chosen.detach() + reference_rejected.detach()
    logits = beta * margin
    return F.binary_cross_entropy_with_logits(logits, torch.ones_like(logits))
