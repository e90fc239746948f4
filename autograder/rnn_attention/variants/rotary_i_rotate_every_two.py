"""Uses the GPT-J style rotate_every_two: cos and sin repeated per feature (repeat_interleave) and x * cos + rotate_every_two(x) * sin, where rotate_every_two maps (a, b) to (-b, a).

question: rotary_tests
replaces: rotary
hunt: 2026-12-i
"""
import torch


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    freq = base ** (-2 * torch.arange(hidden // 2, dtype=work, device=x.device) / hidden)
    angles = positions.to(work)[:, None] * freq
    cos = torch.cos(angles).repeat_interleave(2, dim=-1)
    sin = torch.sin(angles).repeat_interleave(2, dim=-1)
    y = x.to(work)
    swapped = torch.stack([-y[..., 1::2], y[..., 0::2]], dim=-1).flatten(-2)
    return (y * cos + swapped * sin).to(x.dtype)
