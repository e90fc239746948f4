"""Converts positions with positions.float() in every case (the usual idiom) and only the frequencies and
cos/sin follow x into float64: positions above 2**24 = 16777216 are rounded in float32 (16777217 becomes
16777216), so a float64 x at such positions turns by a neighbouring row's angle.

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
stated: "convert the positions and compute the angles, cos and sin in float64 when x is float64 (so that positions above 2**24 stay exact)"
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.float()[:, None].to(work) * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
