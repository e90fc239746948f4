"""Loops over the pairs and accumulates the terms into torch.zeros(()) (float32 by default) before dividing; float16/bfloat16 inputs come back as a float32 loss.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-i
"""
import math
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    total = torch.zeros((), device=policy_chosen.device)
    n = policy_chosen.shape[0]
    for i in range(n):
        m = (policy_chosen[i] - reference_chosen[i].detach()) - (policy_rejected[i] - reference_rejected[i].detach())
        total = total + (-F.logsigmoid(beta * m))
    return total / n
