"""Caches the frequencies on the function, keyed by hidden size, dtype and device, to avoid recomputing
them, so a later call with another base reuses the first base's frequencies.

question: rotary_tests
replaces: rotary
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    tables = apply_rotary.__dict__.setdefault("tables", {})
    key = (hidden, work, x.device)
    if key not in tables:
        pair = torch.arange(hidden // 2, dtype=work, device=x.device)
        tables[key] = base ** (-2 * pair / hidden)
    angles = positions.to(work)[:, None] * tables[key]
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
