"""Uses the in-place detach_() on the reference tensors: the caller's tensors lose requires_grad / grad_fn (their autograd state is modified).

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-i
"""
import math
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    reference_chosen.detach_()
    reference_rejected.detach_()
    margin = (policy_chosen - reference_chosen) - (policy_rejected - reference_rejected)
    return -F.logsigmoid(beta * margin).mean()
