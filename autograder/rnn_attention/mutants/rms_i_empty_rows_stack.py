"""The student loops over the rows and torch.stack-s the results; with a leading axis of length 0 there are no rows and torch.stack raises instead of returning an empty result.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-i
"""
import torch
import torch.nn as nn

class RMSNorm(nn.Module):
    def forward(self, x):
        rows = x.reshape(-1, x.shape[-1])
        out = torch.stack([r / torch.sqrt(r.pow(2).mean() + self.eps) for r in rows])
        return out.reshape(x.shape) * self.weight
