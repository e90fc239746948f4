"""Writes the two output lines into a fresh torch.empty_like buffer by strided slice assignment (out[..., 0::2], out[..., 1::2]) in the working dtype; the buffer is new, so x is untouched.

question: rotary_tests
replaces: rotary
hunt: 2026-12-i
"""
import torch


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    i = torch.arange(hidden // 2, device=x.device).to(work)
    theta = positions.to(work).reshape(-1, 1) * base ** (-(2 * i) / hidden)
    cos, sin = theta.cos(), theta.sin()
    a, b = x[..., ::2].to(work), x[..., 1::2].to(work)
    out = torch.empty(x.shape, dtype=work, device=x.device)
    out[..., ::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out.to(x.dtype)
