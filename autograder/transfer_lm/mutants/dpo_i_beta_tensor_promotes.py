"""Turns beta into a one-element float32 tensor (torch.tensor([float(beta)])) so ints and floats are handled alike; the 1-dim float32 tensor promotes float16/bfloat16 margins to float32, so the loss is returned in float32 for half-precision inputs.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-i
"""
import math
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    beta = torch.tensor([float(beta)], device=policy_chosen.device)
    margin = (policy_chosen - reference_chosen.detach()) - (policy_rejected - reference_rejected.detach())
    return -F.logsigmoid(beta * margin).mean()
