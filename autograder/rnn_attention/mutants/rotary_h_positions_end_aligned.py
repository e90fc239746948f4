"""Takes the last position as the end of the chunk and counts back, positions[-1] - seq + 1 .. positions[-1]
(the new rows are the last ones of the sequence), instead of reading each row's own position: right for
consecutive positions only.

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
stated: "row t of every sequence sits at position positions[t]" ; "they need not start at 0 or increase, and may be negative, repeated, in any order"
"""


def apply_rotary(x, positions, base=10000.0):
    hidden, seq = x.shape[-1], x.shape[-2]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    end = positions[-1].to(work)
    steps = end - seq + 1 + torch.arange(seq, dtype=work, device=x.device)
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = steps[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2].to(work), x[..., 1::2].to(work)
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2).to(x.dtype)
