"""The student takes the root mean square first and adds eps afterwards under a second square root, sqrt(sqrt(ms)**2 + eps); the forward is the same, but at a row of zeros the gradient through sqrt(0) is NaN.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-i
"""
import torch
import torch.nn as nn

class RMSNorm(nn.Module):
    def forward(self, x):
        r = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True))
        return x / torch.sqrt(r * r + self.eps) * self.weight
