"""Writes the stable form by hand: -log sigmoid(x) = relu(-x) + log1p(exp(-|x|)). Values are right, but torch gives relu and abs slope 0 at 0, so at margin exactly 0 the gradient is 0 instead of -beta/2/pairs.

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
    return (torch.relu(-x) + torch.log1p(torch.exp(-x.abs()))).mean()
