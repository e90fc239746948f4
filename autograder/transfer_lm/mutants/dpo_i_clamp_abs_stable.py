"""Hand-written stable form -min(x, 0) + log1p(exp(-|x|)) using clamp(max=0); clamp passes slope 1 at the boundary and abs slope 0, so at margin 0 the gradient is -beta/pairs (double the formula's).

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
    return (-x.clamp(max=0) + torch.log1p(torch.exp(-x.abs()))).mean()
