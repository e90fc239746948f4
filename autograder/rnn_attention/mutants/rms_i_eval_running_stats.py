"""Copying BatchNorm, the student keeps a running mean of mean(x**2) in training and uses it in evaluation mode, so eval output depends on earlier calls rather than each row's own RMS.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-i
"""
import torch
import torch.nn as nn

class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.hidden_size = hidden_size
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.register_buffer("running_ms", torch.ones(()))

    def forward(self, x):
        ms = x.pow(2).mean(dim=-1, keepdim=True)
        if self.training:
            with torch.no_grad():
                self.running_ms.mul_(0.9).add_(0.1 * ms.mean().to(self.running_ms.dtype))
        else:
            ms = self.running_ms.to(x.dtype)
        return x / torch.sqrt(ms + self.eps) * self.weight
