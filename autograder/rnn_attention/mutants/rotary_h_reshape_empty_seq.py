"""Splits the features into pairs with x.reshape(-1, seq, hidden // 2, 2), letting -1 stand for the batch:
with an empty sequence (seq == 0, positions of length 0, e.g. a step that brings no new rows) the -1 cannot
be inferred from 0 elements and reshape raises, where the contract's shapes ask for an empty
(batch, 0, hidden) result.

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
stated: "seq may be 0 (no positions: a step with no new rows); return an empty (batch, 0, hidden) tensor then"
"""


def apply_rotary(x, positions, base=10000.0):
    seq, hidden = x.shape[-2], x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    pairs = x.reshape(-1, seq, hidden // 2, 2).to(work)
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = pairs[..., 0], pairs[..., 1]
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.reshape(x.shape).to(x.dtype)
