"""Computes the scores and the weighted values with torch.einsum instead of matrix products, and the
mask with masked_fill on a boolean view broadcast by unsqueeze.

question: scaled_dot_product_tests
replaces: scaled_dot_product
"""


def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
    scores = torch.einsum("bhid,bhjd->bhij", q, k) / q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(mask.bool().unsqueeze(1).unsqueeze(2), float("-inf"))
    attention = F.dropout(F.softmax(scores, dim=-1), p=attn_drop_rate)
    return torch.einsum("bhij,bhjd->bhid", attention, v), attention
