"""The UvA deep-learning tutorial's form of attention: torch.matmul for the scores, a large negative
number (-9e15) instead of -inf for the hidden keys, F.softmax, then a dropout module built on the spot.

question: scaled_dot_product_tests
replaces: scaled_dot_product
source: UvA DL course, Tutorial 6 (Transformers and multi-head attention)
"""


def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
    d_k = q.size()[-1]
    attn_logits = torch.matmul(q, k.transpose(-2, -1))
    attn_logits = attn_logits / math.sqrt(d_k)
    if mask is not None:
        attn_logits = attn_logits.masked_fill(mask[:, None, None, :] == 1, -9e15)
    attention = F.softmax(attn_logits, dim=-1)
    attention = nn.Dropout(attn_drop_rate)(attention)
    values = torch.matmul(attention, v)
    return values, attention
