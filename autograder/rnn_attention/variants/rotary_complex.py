"""Reads each pair as a complex number and multiplies by torch.polar(1, theta) (RoFormer's complex form,
as in Meta's LLaMA code), in float32 or float64.

question: rotary_tests
replaces: rotary
source: Meta's LLaMA reference code (apply_rotary_emb)
"""


def apply_rotary(x, positions, base=10000.0):
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    hidden = x.shape[-1]
    pairs = torch.view_as_complex(x.to(work).reshape(*x.shape[:-1], hidden // 2, 2).contiguous())
    freqs = 1.0 / base ** (torch.arange(0, hidden, 2, device=x.device, dtype=work) / hidden)
    angles = torch.outer(positions.to(work), freqs)
    turned = pairs * torch.polar(torch.ones_like(angles), angles)
    return torch.view_as_real(turned).flatten(-2).to(x.dtype)
