"""Uses binary cross-entropy with targets of ones made on the CPU, which fails for inputs on a GPU.

question: dpo_loss_tests
replaces: dpo_loss
stated: returns a 0-dim tensor on the inputs' device
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    return F.binary_cross_entropy_with_logits(beta * margin, torch.ones(margin.shape, dtype=margin.dtype))
