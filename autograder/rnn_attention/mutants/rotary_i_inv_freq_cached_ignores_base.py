"""Precomputes the inverse frequencies once per (hidden, dtype, device) in a cache kept on the function (apply_rotary.inv_freq), as a buffer would be, keyed without base; after the first call every later call reuses the first call's base, so base=500.0 after a default call still turns by 10000's frequencies (state leaking between calls).

question: rotary_tests
replaces: rotary
hunt: 2026-12-i
"""
import torch

def apply_rotary(x, positions, base=10000.0):
    cache = apply_rotary.__dict__.setdefault("inv_freq", {})
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    key = (hidden, work, x.device)
    if key not in cache:
        cache[key] = base ** (-2 * torch.arange(hidden // 2, dtype=work, device=x.device) / hidden)
    angles = positions.to(work)[:, None] * cache[key]
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
