"""The student sums the squares with a running loop in x's own dtype; in bfloat16 the accumulator stops growing after a few hundred terms, so long rows get a too-small mean square.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-i
"""
import torch
import torch.nn as nn

class RMSNorm(nn.Module):
    def forward(self, x):
        acc = torch.zeros_like(x[..., 0])
        for j in range(x.shape[-1]):
            acc = acc + x[..., j] * x[..., j]
        rms = torch.sqrt(acc / x.shape[-1] + self.eps).unsqueeze(-1)
        return x / rms * self.weight
