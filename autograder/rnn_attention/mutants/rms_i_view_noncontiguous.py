"""The student flattens the leading axes with x.view(-1, hidden) and views back; a transposed or sliced (non-contiguous) x raises instead of being normalised.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-i
"""
import torch
import torch.nn as nn

class RMSNorm(nn.Module):
    def forward(self, x):
        rows = x.view(-1, self.hidden_size)
        rms = torch.sqrt(rows.pow(2).mean(dim=1, keepdim=True) + self.eps)
        return (rows / rms * self.weight).view(x.shape)
