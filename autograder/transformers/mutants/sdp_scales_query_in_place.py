"""Scales the queries in place (q /= sqrt(head_dim)) before the product: the attention is right, but the
caller's query tensor is divided as a side effect, and again on every call.

question: scaled_dot_product_tests
replaces: scaled_dot_product
contract: q, k and v are not modified
"""


def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
    q /= math.sqrt(q.size(-1))
    scores = q @ k.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(mask.bool()[:, None, None, :], float("-inf"))
    attention = F.dropout(torch.softmax(scores, dim=-1), p=attn_drop_rate)
    return attention @ v, attention
