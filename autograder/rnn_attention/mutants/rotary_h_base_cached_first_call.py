"""Caches the inverse frequencies on the function, keyed by the hidden size only (as model code caches
inv_freq once per module), so the base of the first call with that hidden size sticks: a later call with
another base reuses the first call's frequencies (state leaking between calls).

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
stated: "base: a positive float (10000.0 by default)" ; "theta = positions[t] * base ** (-2i / hidden)"
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cache = apply_rotary.__dict__.setdefault("_inv_freq", {})
    if hidden not in cache:
        cache[hidden] = base ** (-2 * torch.arange(hidden // 2, dtype=torch.float64) / hidden)
    inv_freq = cache[hidden].to(device=x.device, dtype=work)
    angles = positions.to(work)[:, None] * inv_freq
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
