"""Normalises bfloat16 input in float32 for accuracy but forgets to cast back, so a bfloat16 module
returns float32.

question: rms_norm_tests
replaces: rms_norm
contract: return x's dtype
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        h = x.to(torch.promote_types(x.dtype, torch.float32))
        h = h * torch.rsqrt(h.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return self.weight * h
