"""Writes the term as logaddexp(0, -x) = log(1 + e^-x), reducing with sum / number of pairs.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-i
"""
import math
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    rc, rr = reference_chosen.detach(), reference_rejected.detach()
    x = beta * (policy_chosen - rc) - beta * (policy_rejected - rr)
    return torch.logaddexp(torch.zeros_like(x), -x).sum() / x.numel()
