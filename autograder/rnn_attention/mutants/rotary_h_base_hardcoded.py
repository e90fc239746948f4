"""Builds the frequencies the way the Annotated Transformer's sinusoidal position encoding does,
exp(-(2i) * log(10000) / hidden), copying the constant 10000.0 from that code: the `base` argument is accepted
but never used, so any base other than 10000 gives the default's angles.

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
stated: "base: a positive float (10000.0 by default)" ; "theta = positions[t] * base ** (-2i / hidden)"
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    inv_freq = torch.exp(torch.arange(0, hidden, 2, dtype=work, device=x.device) * (-math.log(10000.0) / hidden))
    angles = positions.to(work)[:, None] * inv_freq
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
