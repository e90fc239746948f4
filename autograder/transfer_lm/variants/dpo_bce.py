"""Binary cross-entropy with logits against targets of ones made like the margin: the chosen continuation is
the "positive class" of each pair.

question: dpo_loss_tests
replaces: dpo_loss
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    chosen_ratio = policy_chosen - reference_chosen.detach()
    rejected_ratio = policy_rejected - reference_rejected.detach()
    x = beta * (chosen_ratio - rejected_ratio)
    return F.binary_cross_entropy_with_logits(x, torch.ones_like(x))
