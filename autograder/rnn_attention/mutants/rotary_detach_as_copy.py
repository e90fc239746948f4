"""Takes x.detach().clone() as the output to fill, thinking detach copies, so no gradient reaches x.

question: rotary_tests
replaces: rotary
contract: gradients reach x
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].detach().to(work), x[..., 1::2].detach().to(work)
    out = x.detach().clone()
    out[..., 0::2] = (even * cos - odd * sin).to(x.dtype)
    out[..., 1::2] = (even * sin + odd * cos).to(x.dtype)
    return out
