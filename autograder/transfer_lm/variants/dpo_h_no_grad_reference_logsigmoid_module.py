"""Computes the reference's chosen-minus-rejected difference inside torch.no_grad() (instead of .detach()),
then applies the nn.LogSigmoid module and negates the mean with .neg().

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    with torch.no_grad():
        reference_margin = reference_chosen - reference_rejected
    policy_margin = policy_chosen - policy_rejected
    return torch.nn.LogSigmoid()(beta * (policy_margin - reference_margin)).mean().neg()
