"""Uses binary cross-entropy with logits against a target of ones (the DPO loss is BCE with label 1), the
target built with torch.ones(len(x), dtype=x.dtype) but no device: CPU targets, so GPU inputs make it raise.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
stated: the loss is on the inputs' device (make what you create there)
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    x = beta * margin
    return F.binary_cross_entropy_with_logits(x, torch.ones(len(x), dtype=x.dtype))
