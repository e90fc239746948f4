"""Makes the angles, cos and sin in float32 (float64 for float64 x) as the skeleton asks, then casts cos and sin to
x's dtype and does the products and sums in it, as Hugging Face's Llama does: for bfloat16 x the products round
in bfloat16 (a few of its steps more than a float32 product cast back once), which the skeleton leaves open (it
fixes the precision of the angles, cos and sin only). Round 2026-12-h's hunter named this reading.

question: rotary_tests
replaces: rotary
source: Hugging Face transformers, modeling_llama.apply_rotary_pos_emb (cos and sin cast to the input's dtype)
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    pair = torch.arange(hidden // 2, dtype=work, device=x.device)
    angles = positions.to(work)[:, None] * base ** (-2 * pair / hidden)
    cos, sin = torch.cos(angles).to(x.dtype), torch.sin(angles).to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    turned = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return turned.flatten(-2)
