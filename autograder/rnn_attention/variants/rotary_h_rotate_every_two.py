"""GPT-J's form: sin and cos are repeated to full width with repeat_interleave(2) (each angle twice, for
the pair's two neighbours), and out = x * cos + rotate_every_two(x) * sin, where rotate_every_two maps
(x[2i], x[2i+1]) to (-x[2i+1], x[2i]) by stacking and flattening; arithmetic in float32 (float64 for float64).

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
source: HuggingFace transformers modeling_gptj.py (rotate_every_two, apply_rotary_pos_emb)
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    inv_freq = 1.0 / (base ** (torch.arange(0, hidden, 2, dtype=torch.int64, device=x.device).to(work) / hidden))
    sinusoid = positions.to(work)[:, None] * inv_freq[None, :]                # (seq, hidden/2)
    sin = torch.repeat_interleave(torch.sin(sinusoid), 2, dim=-1)             # (seq, hidden)
    cos = torch.repeat_interleave(torch.cos(sinusoid), 2, dim=-1)
    xw = x.to(work)
    rotated = torch.stack((-xw[..., 1::2], xw[..., ::2]), dim=-1).flatten(-2)
    return (xw * cos + rotated * sin).to(x.dtype)
