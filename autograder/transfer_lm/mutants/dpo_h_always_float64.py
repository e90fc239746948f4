"""Computes the loss in float64 "for accuracy" (casting the four inputs with .double()) and returns that
float64 result as it is, so float32 (or half-precision) log-probabilities give a float64 loss instead of a
loss in the inputs' dtype.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
stated: the loss comes back in the inputs' dtype
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen.double() - reference_chosen.detach().double()) - (
        policy_rejected.double() - reference_rejected.detach().double())
    return -F.logsigmoid(beta * margin).mean()
