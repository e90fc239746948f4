"""Writes dropout by hand with one (seq, seq) keep-mask for the attention matrix, which broadcasts over the
batch and the heads, so every sentence and every head drop the same weights instead of each weight being
dropped on its own.

question: scaled_dot_product_tests
replaces: scaled_dot_product
"""


def scaled_dot_product(q, k, v, attn_drop_rate=0.1, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask.bool()[:, None, None, :], float("-inf"))
    attention = torch.softmax(scores, dim=-1)
    if attn_drop_rate > 0:
        seq = attention.size(-1)
        keep = torch.rand(seq, seq, device=attention.device) >= attn_drop_rate  # one mask for the matrix
        attention = torch.where(keep, attention / (1 - attn_drop_rate), torch.zeros_like(attention))
    return attention @ v, attention
