"""Treats each pair as a binary classification with target 1: F.binary_cross_entropy_with_logits(beta*margin, ones), mean reduction.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-i
"""
import math
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    with torch.no_grad():
        ref = reference_chosen - reference_rejected
    x = beta * (policy_chosen - policy_rejected - ref)
    return F.binary_cross_entropy_with_logits(x, torch.ones_like(x))
