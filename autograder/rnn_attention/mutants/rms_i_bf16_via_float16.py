"""For bfloat16 input the student upcasts to float16 (thinking any 16-bit half is equivalent), so squares of values above 256 overflow to inf and rows come out as zeros.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-i
"""
import torch
import torch.nn as nn

class RMSNorm(nn.Module):
    def forward(self, x):
        h = x.half() if x.dtype == torch.bfloat16 else x
        rms = torch.sqrt(h.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return (h / rms).to(x.dtype) * self.weight
