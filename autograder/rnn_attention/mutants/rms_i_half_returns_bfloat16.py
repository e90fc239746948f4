"""The student upcasts 16-bit input to float32 and casts back with .bfloat16(), assuming 16-bit means bfloat16; float16 input comes back as bfloat16.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-i
"""
import torch
import torch.nn as nn

class RMSNorm(nn.Module):
    def forward(self, x):
        if x.dtype in (torch.float16, torch.bfloat16):
            xf = x.float()
            out = xf / torch.sqrt(xf.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight.float()
            return out.bfloat16()
        return x / torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight
