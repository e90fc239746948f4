"""Writes dropout by hand as attention * keep / (1 - attn_drop_rate): right for every rate below 1, but at
attn_drop_rate=1.0, where dropout drops every weight, it divides zeros by zero and returns NaN.

question: scaled_dot_product_tests
replaces: scaled_dot_product
"""


def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask.bool()[:, None, None, :], float("-inf"))
    attention = torch.softmax(scores, dim=-1)
    keep = (torch.rand_like(attention) >= attn_drop_rate).to(attention.dtype)
    attention = attention * keep / (1 - attn_drop_rate)
    return attention @ v, attention
