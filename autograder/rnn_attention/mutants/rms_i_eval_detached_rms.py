"""In evaluation mode the student detaches the root mean square (thinking eval needs no gradient through the statistics), so the gradient reaching x in eval mode lacks the term through the RMS.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-i
"""
import torch
import torch.nn as nn

class RMSNorm(nn.Module):
    def forward(self, x):
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        if not self.training:
            rms = rms.detach()
        return x / rms * self.weight
