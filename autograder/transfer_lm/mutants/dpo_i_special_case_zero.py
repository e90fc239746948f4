"""Special-cases the start of training so the loss is exactly ln 2: where beta*margin == 0 it substitutes the constant ln 2, which has no gradient, so at margin 0 nothing reaches the policy.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-i
"""
import math
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    x = beta * margin
    return torch.where(x == 0, torch.full_like(x, math.log(2)), -F.logsigmoid(x)).mean()
