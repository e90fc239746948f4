"""Follows the rotate_half layout of LLaMA's Hugging Face code: the angles repeated for both halves and
feature j paired with feature j + hidden/2, not the neighbours 2i, 2i + 1 the skeleton states.

question: rotary_tests
replaces: rotary
contract: pairs of neighbours (2i, 2i + 1)
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, hidden, 2, device=x.device).float() / hidden))
    freqs = torch.outer(positions.float(), inv_freq)
    emb = torch.cat([freqs, freqs], dim=-1)
    rotated = torch.cat([-x[..., hidden // 2 :], x[..., : hidden // 2]], dim=-1)
    return (x * emb.cos() + rotated * emb.sin()).to(x.dtype)
