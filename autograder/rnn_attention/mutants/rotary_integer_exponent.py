"""Builds the exponents from integer tensors with floor division, torch.arange(0, hidden, 2) // hidden,
which is 0 for every pair, so all pairs turn by one radian per position.

question: rotary_tests
replaces: rotary
contract: theta = positions[t] * base ** (-2i / hidden)
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    inv_freq = 1.0 / base ** (torch.arange(0, hidden, 2, device=x.device) // hidden)
    angles = positions[:, None] * inv_freq
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
