"""Builds the turn as complex multiplication: views the neighbour pairs as complex numbers (view_as_complex) and multiplies by torch.polar(1, theta), as in LLaMA's reference code.

question: rotary_tests
replaces: rotary
hunt: 2026-12-i
"""
import torch


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    freq = 1.0 / base ** (torch.arange(0, hidden, 2, dtype=work, device=x.device) / hidden)
    angles = torch.outer(positions.to(work), freq)
    rot = torch.polar(torch.ones_like(angles), angles)
    z = torch.view_as_complex(x.to(work).reshape(*x.shape[:-1], hidden // 2, 2).contiguous())
    return torch.view_as_real(z * rot).reshape(x.shape).to(x.dtype)
