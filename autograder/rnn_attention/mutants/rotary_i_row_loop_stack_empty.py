"""Turns the rows one at a time in a loop over t and joins them with torch.stack(rows, dim=1); with seq = 0 the list is empty and torch.stack raises instead of returning an empty (batch, 0, hidden) tensor.

question: rotary_tests
replaces: rotary
hunt: 2026-12-i
"""
import torch


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    freq = base ** (-2 * torch.arange(hidden // 2, dtype=work, device=x.device) / hidden)
    rows = []
    for t in range(x.shape[1]):
        angle = positions[t].to(work) * freq
        cos, sin = torch.cos(angle), torch.sin(angle)
        even, odd = x[:, t, 0::2].to(work), x[:, t, 1::2].to(work)
        rows.append(torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2))
    return torch.stack(rows, dim=1).to(x.dtype)
