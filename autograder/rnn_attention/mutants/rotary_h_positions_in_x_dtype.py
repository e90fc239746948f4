"""Converts positions to x's dtype (positions.to(x.dtype)) before multiplying by the float32 frequencies:
in bfloat16 every integer above 256 is rounded (257 becomes 256, 1001 becomes 1000), so rows at large
positions turn by another row's angles; float32 and float64 positions are exact.

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
stated: "convert the positions and compute the angles, cos and sin ... in float32 otherwise, for float32, bfloat16 and float16 x alike"
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    inv_freq = base ** (-2 * pair / hidden)
    angles = positions.to(x.dtype)[:, None] * inv_freq
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
