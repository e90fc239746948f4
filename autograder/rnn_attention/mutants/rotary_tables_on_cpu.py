"""Builds the pair indices with torch.arange(hidden // 2) without a device, so the angles are on the CPU
when x is on a GPU.

question: rotary_tests
replaces: rotary
contract: on x's device
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    pair = torch.arange(hidden // 2, dtype=work)
    angles = positions.to(work).cpu()[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype).to(x.device)
