"""Divides the scores by the integer square root of head_dim, math.isqrt(head_dim), to keep the scale a
whole number: exact for the visible check's head_dim 4, too small for head_dim 3 or 8.

question: scaled_dot_product_tests
replaces: scaled_dot_product
"""


def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
    scores = q @ k.transpose(-2, -1) / math.isqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask.bool()[:, None, None, :], float("-inf"))
    attention = torch.softmax(scores, dim=-1)
    attention = F.dropout(attention, p=attn_drop_rate)
    return attention @ v, attention
