"""Computes the loss in float64 for stability (inputs upcast with .double()) but forgets to cast the result back, so float16/bfloat16/float32 inputs get a float64 loss.

question: dpo_loss_tests
replaces: dpo_loss
hunt: 2026-12-i
"""
import math
import torch
import torch.nn.functional as F


def dpo_loss(policy_chosen, policy_rejected, reference_chosen, reference_rejected, beta):
    margin = (policy_chosen.double() - reference_chosen.detach().double()) - (policy_rejected.double() - reference_rejected.detach().double())
    return -F.logsigmoid(beta * margin).mean()
