"""Mean square via torch.einsum of x with itself, the scale by pow(-0.5), the gain applied first.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-i
"""
import torch
import torch.nn as nn

class RMSNorm(nn.Module):
    def forward(self, x):
        ms = torch.einsum("...i,...i->...", x, x).unsqueeze(-1) / x.shape[-1]
        return self.weight * x * (ms + self.eps).pow(-0.5)
