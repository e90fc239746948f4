"""Hugging Face LlamaRMSNorm's shape: upcast to at least float32 (torch.promote_types, so float64 stays float64),
variance = mean of squares, x * rsqrt(variance + eps), cast back to the input dtype, then scale by weight.

source: transformers LlamaRMSNorm
question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        input_dtype = x.dtype
        h = x.to(torch.promote_types(input_dtype, torch.float32))
        variance = h.pow(2).mean(-1, keepdim=True)
        h = h * torch.rsqrt(variance + self.eps)
        return self.weight * h.to(input_dtype)
