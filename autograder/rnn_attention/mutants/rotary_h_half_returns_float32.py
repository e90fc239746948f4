"""Computes in float32 (float64 for float64) and casts back only for bfloat16, the one narrow dtype the
student had in mind: a float16 x comes back as float32, not x's dtype.

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
stated: "return x's dtype (float16 for float16 x)"
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    out = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)
    return out.to(torch.bfloat16) if x.dtype == torch.bfloat16 else out
