"""Always computes the angles in float32 (.float()), also for float64 x, whose angles near 10^6 radians
are then off by up to 0.03.

question: rotary_tests
replaces: rotary
contract: angles, cos and sin in float64 when x is float64
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    inv_freq = base ** (-torch.arange(0, hidden, 2, device=x.device).float() / hidden)
    angles = positions.float()[:, None] * inv_freq
    cos, sin = torch.cos(angles).to(x.dtype), torch.sin(angles).to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)
