"""The student detaches the gain in evaluation mode (thinking parameters only learn in training), so no gradient reaches weight in eval mode.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-i
"""
import torch
import torch.nn as nn

class RMSNorm(nn.Module):
    def forward(self, x):
        w = self.weight if self.training else self.weight.detach()
        return x / torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * w
