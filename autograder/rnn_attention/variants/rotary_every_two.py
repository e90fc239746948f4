"""Repeats each pair's cos and sin for its two features and adds x * cos to rotate_every_two(x) * sin,
where rotate_every_two maps each pair (a, b) to (-b, a) (GPT-J's form).

question: rotary_tests
replaces: rotary
source: GPT-J's apply_rotary_pos_emb (rotate_every_two)
"""


def apply_rotary(x, positions, base=10000.0):
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    dim = x.shape[-1]
    exponent = torch.arange(0, dim, 2, device=x.device).to(work) / dim
    sinusoid = positions.to(work)[:, None] * torch.exp(-exponent * math.log(base))
    sin = torch.repeat_interleave(torch.sin(sinusoid), 2, dim=-1)
    cos = torch.repeat_interleave(torch.cos(sinusoid), 2, dim=-1)
    xw = x.to(work)
    every_two = torch.stack((-xw[..., 1::2], xw[..., ::2]), dim=-1).flatten(-2)
    return (xw * cos + every_two * sin).to(x.dtype)
