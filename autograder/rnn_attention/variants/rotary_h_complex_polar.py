"""Meta's LLaMA form: views each neighbouring pair (x[2i], x[2i+1]) as one complex number
(torch.view_as_complex on a (..., hidden/2, 2) reshape) and multiplies it by the unit complex numbers
torch.polar(1, theta) built with torch.outer; complex64 for float32/bfloat16, complex128 for float64, then
torch.view_as_real and a cast back to x's dtype.

question: rotary_tests
replaces: rotary
hunt: 2026-12-h
source: facebookresearch/llama model.py (precompute_freqs_cis, apply_rotary_emb)
"""


def apply_rotary(x, positions, base=10000.0):
    hidden = x.shape[-1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    freqs = 1.0 / (base ** (torch.arange(0, hidden, 2, device=x.device, dtype=work) / hidden))
    angles = torch.outer(positions.to(work), freqs)                            # (seq, hidden/2)
    freqs_cis = torch.polar(torch.ones_like(angles), angles)                   # (seq, hidden/2) complex
    x_c = torch.view_as_complex(x.to(work).reshape(*x.shape[:-1], hidden // 2, 2).contiguous())
    return torch.view_as_real(x_c * freqs_cis).flatten(-2).to(x.dtype)
