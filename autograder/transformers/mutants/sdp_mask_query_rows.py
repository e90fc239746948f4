"""Broadcasts the padding mask over the query rows (mask[:, None, :, None]) instead of the key columns.

question: scaled_dot_product_tests
replaces: scaled_dot_product
contract: the mask hides the padded key columns
"""


def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask.bool()[:, None, :, None], -1e9)
    attention = torch.softmax(scores, dim=-1)
    attention = F.dropout(attention, p=attn_drop_rate)
    return attention @ v, attention
