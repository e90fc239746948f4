"""Widens only bfloat16 (the dtype the docstring warns about) and otherwise computes in x's own dtype:
a float16 x gets its angles, cos and sin in float16, where an angle of 1000 radians is only known to within
0.25 and positions above 65504 overflow to inf (the docstring says float32 for everything but float64).

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
stated: "in float32 otherwise, for float32, bfloat16 and float16 x alike"
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float32 if x.dtype == torch.bfloat16 else x.dtype
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
