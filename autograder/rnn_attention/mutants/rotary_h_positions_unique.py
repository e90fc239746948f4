"""Computes cos and sin once per distinct position, with torch.unique(positions) (sorted), to save work when
positions repeat, but forgets return_inverse and pairs the sorted distinct positions with the rows in order:
right for increasing distinct positions only; a repeated position breaks the shapes and positions that go
backwards turn the rows by each other's angles.

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
stated: "row t of every sequence sits at position positions[t]" ; "may be negative, repeated, in any order"
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    distinct = torch.unique(positions) if positions.device.type != "meta" else positions
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = distinct.to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
