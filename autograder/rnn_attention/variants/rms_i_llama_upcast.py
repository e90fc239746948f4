"""LLaMA-style: computes in a wider dtype (float32 for 16-bit input, float64 otherwise via promote_types) and casts back to x's dtype before the gain.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-i
"""
import torch
import torch.nn as nn

class RMSNorm(nn.Module):
    def forward(self, x):
        wide = torch.float64 if x.dtype in (torch.float32, torch.float64) else torch.float32
        xw = x.to(wide)
        out = xw * torch.rsqrt(xw.pow(2).mean(-1, keepdim=True) + self.eps)
        return (out * self.weight.to(wide)).to(x.dtype)
