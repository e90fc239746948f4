"""Builds the 2x2 rotation matrix of every (row, pair), R = [[cos, -sin], [sin, cos]] of shape
(seq, hidden/2, 2, 2), and applies it to the pairs with torch.einsum on a (batch, seq, hidden/2, 2) reshape;
the frequencies come from exp(-2i * log(base) / hidden).

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
"""


def apply_rotary(x, positions, base=10000.0):
    batch, seq, hidden = x.shape
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    i = torch.arange(hidden // 2, dtype=work, device=x.device)
    theta = torch.exp(-2.0 * i * math.log(base) / hidden)
    angles = positions.to(work).unsqueeze(-1) * theta                          # (seq, hidden/2)
    c, s = angles.cos(), angles.sin()
    rot = torch.stack([torch.stack([c, -s], dim=-1), torch.stack([s, c], dim=-1)], dim=-2)  # (seq, P, 2, 2)
    pairs = x.to(work).reshape(batch, seq, hidden // 2, 2)
    out = torch.einsum("tpij,btpj->btpi", rot, pairs)
    return out.reshape(batch, seq, hidden).to(x.dtype)
