"""Writes the turned pairs back into x's slices (after cloning them) and returns x, so the caller's tensor
changes.

question: rotary_tests
replaces: rotary
contract: leave x unmodified
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].clone().to(work), x[..., 1::2].clone().to(work)
    with torch.no_grad():
        x[..., 0::2] = (even * cos - odd * sin).to(x.dtype)
        x[..., 1::2] = (even * sin + odd * cos).to(x.dtype)
    return x
