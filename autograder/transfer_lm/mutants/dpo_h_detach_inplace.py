"""Detaches the reference log-probabilities with the in-place detach_() instead of detach(): the caller's
tensors themselves are cut from their graph (requires_grad switched off, grad_fn dropped), so the function
modifies its inputs; on a view that requires grad it raises.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
stated: do not modify the inputs
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    reference_chosen.detach_()
    reference_rejected.detach_()
    margin = (policy_chosen - reference_chosen) - (policy_rejected - reference_rejected)
    return -F.logsigmoid(beta * margin).mean()
