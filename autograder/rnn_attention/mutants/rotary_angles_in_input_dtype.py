"""Computes the angles, cos and sin in x's dtype, which for bfloat16 rounds an angle near 100 radians by up
to 0.25.

question: rotary_tests
replaces: rotary
contract: angles, cos and sin in float32 (float64 for float64 x)
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    pair = torch.arange(hidden // 2, dtype=x.dtype, device=x.device)
    angles = positions.to(x.dtype)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)
