"""Writes dropout by hand with a keep-mask from torch.rand(attention.shape), which is made on the CPU
whatever device the attention is on: on a GPU the function fails as soon as dropout is on.

question: scaled_dot_product_tests
replaces: scaled_dot_product
contract: every tensor it makes is on q's device
"""


def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask.bool()[:, None, None, :], float("-inf"))
    attention = torch.softmax(scores, dim=-1)
    if attn_drop_rate > 0:
        keep = torch.rand(attention.shape) >= attn_drop_rate
        attention = torch.where(keep, attention / (1 - attn_drop_rate), torch.zeros_like(attention))
    return attention @ v, attention
