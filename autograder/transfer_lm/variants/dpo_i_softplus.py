"""Uses F.softplus(-x), the identity -log sigmoid(x) = softplus(-x), and sums the pair differences as (pc - pr) - (rc - rr).

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-i
"""
import math
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    x = beta * ((policy_chosen - policy_rejected) - (reference_chosen.detach() - reference_rejected.detach()))
    return F.softplus(-x).mean()
