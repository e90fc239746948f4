"""Makes sure masked weights are exactly 0 by also zeroing them in place after the softmax (weights.masked_fill_): the softmax's output, which its backward needs, is overwritten, so backward through the context raises an in-place error.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: keep it differentiable (with gradients on, no in-place write into a tensor that is needed)
"""


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)
        values = torch.cat([cache[1], values], dim=1)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    weights.masked_fill_(future, 0.0)
    return weights @ values, (keys, values)
