"""Computes the angles, cos and sin in float64 for float64 x and in float32 only for bfloat16 and float32 x; for float16 x it keeps float16 throughout (the student reads 'float32 for bfloat16' as the only low-precision special case), so angles near 1000 radians lose about half a radian.

question: rotary_tests
replaces: rotary
hunt: 2026-12-i
"""
import torch


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = x.dtype if x.dtype in (torch.float64, torch.float16) else torch.float32
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
