"""Guards against overflow by clamping beta * margin to [-1000, 1000] before the log-sigmoid: exact up to the
+-1000 the docstring names, but a pair with beta * margin of -5000 contributes 1000 instead of 5000 and gets
no gradient (the clamp cuts it).

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-h
stated: stable and exact for a beta * margin of any size
"""


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    return -F.logsigmoid((beta * margin).clamp(-1000.0, 1000.0)).mean()
