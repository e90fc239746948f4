"""Squeezes the mask first, mask.squeeze(), so that a (batch, 1, 1, seq) mask would work too: harmless for
a batch of several sentences, but the mask of a single sentence loses its batch axis and can no longer be
broadcast over the key columns.

question: scaled_dot_product_tests
replaces: scaled_dot_product
"""


def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        mask = mask.squeeze()
        scores = scores.masked_fill(mask.bool()[:, None, None, :], float("-inf"))
    attention = torch.softmax(scores, dim=-1)
    attention = F.dropout(attention, p=attn_drop_rate)
    return attention @ v, attention
