"""To save memory, computes the margin in place in policy_chosen's buffer when it does not require grad (sub_), overwriting the caller's policy_chosen values.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-i
"""
import math
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    rc, rr = reference_chosen.detach(), reference_rejected.detach()
    if policy_chosen.requires_grad:
        margin = (policy_chosen - rc) - (policy_rejected - rr)
    else:
        margin = policy_chosen.sub_(rc).sub_(policy_rejected - rr)
    return -F.logsigmoid(beta * margin).mean()
