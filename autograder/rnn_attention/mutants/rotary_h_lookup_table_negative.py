"""Precomputes a cos/sin table for positions 0 .. max(positions) (as Llama-style code does for 0 .. max_len)
and looks the rows up by indexing the table with positions: a negative position wraps around to the end of
the table (-1 reads the largest position's row), and an empty positions tensor fails on max().

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
stated: "may be negative" ; "seq may be 0 (no positions: a step with no new rows); return an empty (batch, 0, hidden) tensor then"
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    length = int(positions.max()) + 1 if positions.device.type != "meta" else positions.shape[0]
    table = torch.arange(length, dtype=work, device=x.device)[:, None] * \
        base ** (-2 * torch.arange(hidden // 2, dtype=work, device=x.device) / hidden)
    cos, sin = torch.cos(table)[positions], torch.sin(table)[positions]
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
