"""Writes the turned pairs back slice by slice into a working tensor: a clone for float32, bfloat16 and float16 x, but for float64 x just x.to(torch.float64), which the student takes for a copy; it returns x itself, so the caller's float64 x is overwritten.

question: rotary_tests
replaces: rotary
hunt: 2026-12-i
"""
import torch


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    y = x.to(work) if x.dtype == torch.float64 else x.clone().to(work)
    even, odd = y[..., 0::2].clone(), y[..., 1::2].clone()
    y[..., 0::2] = even * cos - odd * sin
    y[..., 1::2] = even * sin + odd * cos
    return y.to(x.dtype)
