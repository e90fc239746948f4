"""Builds one 2 x 2 rotation matrix per position and pair and applies them with torch.einsum.

question: rotary_tests
replaces: rotary
"""


def apply_rotary(x, positions, base=10000.0):
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    hidden = x.shape[-1]
    i = torch.arange(hidden // 2, device=x.device, dtype=work)
    theta = positions.to(work).unsqueeze(-1) * torch.pow(base, -2.0 * i / hidden)
    c, s = theta.cos(), theta.sin()
    rotation = torch.stack([torch.stack([c, -s], -1), torch.stack([s, c], -1)], -2)
    pairs = x.to(work).unflatten(-1, (hidden // 2, 2))
    return torch.einsum("tpij,btpj->btpi", rotation, pairs).flatten(-2).to(x.dtype)
