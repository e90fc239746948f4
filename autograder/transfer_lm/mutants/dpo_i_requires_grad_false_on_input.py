"""Stops gradients to the reference by calling reference_*.requires_grad_(False) instead of detaching: it changes the caller's tensors' autograd state and raises for references that are results of a graph (non-leaf).

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-i
"""
import math
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    reference_chosen.requires_grad_(False)
    reference_rejected.requires_grad_(False)
    margin = (policy_chosen - reference_chosen) - (policy_rejected - reference_rejected)
    return -F.logsigmoid(beta * margin).mean()
