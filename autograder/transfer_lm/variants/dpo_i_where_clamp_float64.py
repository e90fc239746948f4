"""Works in float64 with a hand-written two-branch stable form (clamped inside each branch so no inf/nan gradients, and the negative branch owns x = 0 so its slope is -1/2 there), then casts back to the inputs' dtype.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-i
"""
import math
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    dtype = policy_chosen.dtype
    m = (policy_chosen.double() - reference_chosen.detach().double()) - (policy_rejected.double() - reference_rejected.detach().double())
    x = beta * m
    pos = torch.log1p(torch.exp(-x.clamp(min=0)))
    neg = -x + torch.log1p(torch.exp(x.clamp(max=0)))
    return torch.where(x > 0, pos, neg).mean().to(dtype)
