"""Loops over the pairs in Python: for each i, computes theta_i = base ** (-2i / hidden) as a Python float,
the row angles positions * theta_i, and writes the two turned features into a fresh result tensor
(torch.empty in the working dtype) by slice assignment, never touching x.

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xw = x.to(work)
    out = torch.empty(x.shape, dtype=work, device=x.device)
    pos = positions.to(work)
    for i in range(hidden // 2):
        theta = float(base) ** (-2.0 * i / hidden)
        angle = pos * theta                                                    # (seq,)
        c, s = torch.cos(angle), torch.sin(angle)
        a, b = xw[..., 2 * i], xw[..., 2 * i + 1]                              # (batch, seq)
        out[..., 2 * i] = a * c - b * s
        out[..., 2 * i + 1] = a * s + b * c
    return out.to(x.dtype)
