"""Computes bfloat16 inputs in float16 ("half precision is half precision, and float16 has more mantissa bits"),
casting back to bfloat16 at the end: float16's range stops at 65504, so any |x| above about 256 squares to inf
and the whole row comes out as zeros (tiny values underflow too), where bfloat16 itself had range to spare.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
stated: "float32 or float64 for bfloat16 and float16" ; "never float16 for bfloat16"
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        h = x.to(torch.float16) if x.dtype == torch.bfloat16 else x
        rms = torch.sqrt(h.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return (h / rms * self.weight.to(h.dtype)).to(x.dtype)
