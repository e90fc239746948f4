"""Builds a 2x2 rotation matrix per (position, pair) and applies it with einsum over the reshaped pairs.

question: rotary_tests
replaces: rotary
hunt: 2026-12-i
"""
import torch


def apply_rotary(x, positions, base=10000.0):
    batch, seq, hidden = x.shape
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    exponent = torch.arange(hidden // 2, dtype=work, device=x.device) * 2 / hidden
    angles = positions.to(work).unsqueeze(-1) * torch.pow(torch.tensor(base, dtype=work, device=x.device), -exponent)
    c, s = angles.cos(), angles.sin()
    rot = torch.stack([torch.stack([c, -s], -1), torch.stack([s, c], -1)], -2)   # (seq, hidden/2, 2, 2)
    pairs = x.to(work).reshape(batch, seq, hidden // 2, 2)
    return torch.einsum("tpij,btpj->btpi", rot, pairs).reshape(batch, seq, hidden).to(x.dtype)
