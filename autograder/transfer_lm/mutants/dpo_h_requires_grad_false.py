"""Stops the gradient to the reference by switching requires_grad off on the inputs themselves
(reference_chosen.requires_grad_(False)): the caller's leaf tensors are changed, and references that come out
of a graph (non-leaf tensors, such as a reference model's sums computed with grad on) make it raise.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
stated: do not modify the inputs; references arriving with requires_grad=True are accepted and detached
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    reference_chosen.requires_grad_(False)
    reference_rejected.requires_grad_(False)
    margin = (policy_chosen - reference_chosen) - (policy_rejected - reference_rejected)
    return -F.logsigmoid(beta * margin).mean()
