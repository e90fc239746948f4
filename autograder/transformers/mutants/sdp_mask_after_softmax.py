"""Applies the padding mask after the softmax by zeroing the padded columns (rows no longer sum to 1).

question: scaled_dot_product_tests
replaces: scaled_dot_product
"""


def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    attention = torch.softmax(scores, dim=-1)
    if mask is not None:
        attention = attention.masked_fill(mask.bool()[:, None, None, :], 0.0)
    attention = F.dropout(attention, p=attn_drop_rate)
    return attention @ v, attention
