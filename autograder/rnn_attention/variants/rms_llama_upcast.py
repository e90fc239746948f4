"""Normalises in float32 at least (LLaMA's Hugging Face RMSNorm: a float32 copy for bfloat16, float64
kept as it is) and casts back to x's dtype before the weight.

question: rms_norm_tests
replaces: rms_norm
source: transformers' LlamaRMSNorm (with float64 kept wide)
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        dtype = x.dtype
        h = x.to(torch.promote_types(dtype, torch.float32))
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(dtype)
