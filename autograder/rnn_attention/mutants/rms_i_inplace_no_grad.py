"""Under torch.no_grad() the student normalises x in place (x.mul_) to save memory, thinking in-place is only a problem for autograd; the caller's x is overwritten.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-i
"""
import torch
import torch.nn as nn

class RMSNorm(nn.Module):
    def forward(self, x):
        scale = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        if not torch.is_grad_enabled():
            return x.mul_(scale).mul_(self.weight)
        return x * scale * self.weight
