"""Gets one sign wrong in the second line, out[2i + 1] = x[2i + 1] cos - x[2i] sin, which is not a rotation:
pairs change length and scores change when both positions move.

question: rotary_tests
replaces: rotary
contract: the formula; every pair keeps its length
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, odd * cos - even * sin], dim=-1)
    return turned.flatten(-2).to(x.dtype)
