"""Takes the exponents 2i/hidden from torch.linspace(0, 1 - 2/hidden, hidden/2), the angles from
torch.outer, and rebuilds the interleaved layout by writing the two turned halves into a
(batch, seq, hidden/2, 2) tensor with torch.cat of unsqueezed halves, then a reshape.

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    exponents = torch.linspace(0.0, 1.0 - 2.0 / hidden, hidden // 2, dtype=work, device=x.device)
    angles = torch.outer(positions.to(work), torch.pow(torch.full_like(exponents, base), -exponents))
    cos, sin = angles.cos(), angles.sin()
    x1, x2 = x.to(work)[..., ::2], x.to(work)[..., 1::2]
    out = torch.cat([(x1 * cos - x2 * sin).unsqueeze(-1), (x1 * sin + x2 * cos).unsqueeze(-1)], dim=-1)
    return out.reshape(x.shape).to(x.dtype)
