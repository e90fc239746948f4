"""Moves the even features to the first half and the odd ones to the second, applies the rotate_half form
there (where it pairs exactly the neighbours the skeleton states) and puts the features back in order.

question: rotary_tests
replaces: rotary
"""


def apply_rotary(x, positions, base=10000.0):
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    hidden = x.shape[-1]
    halves = torch.cat([x[..., 0::2], x[..., 1::2]], dim=-1).to(work)
    inv_freq = 1.0 / (base ** (torch.arange(0, hidden, 2, device=x.device, dtype=work) / hidden))
    freqs = torch.outer(positions.to(work), inv_freq)
    emb = torch.cat([freqs, freqs], dim=-1)
    rotate_half = torch.cat([-halves[..., hidden // 2 :], halves[..., : hidden // 2]], dim=-1)
    out = halves * emb.cos() + rotate_half * emb.sin()
    return torch.stack([out[..., : hidden // 2], out[..., hidden // 2 :]], dim=-1).flatten(-2).to(x.dtype)
