"""Converts the positions to x's dtype before widening (positions.to(x.dtype).to(work)), so for bfloat16 x positions above 256 are rounded (257 becomes 256) before the float32 angles are computed.

question: rotary_tests
replaces: rotary
hunt: 2026-12-i
"""
import torch


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.to(x.dtype).to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
