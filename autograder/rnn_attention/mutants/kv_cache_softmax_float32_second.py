"""Takes the softmax in float32 "for stability" and casts the weights back to the scores' dtype, as some library code does: with float64 inputs the weights are rounded to float32 precision, so the context is no longer computed in x_new's dtype.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: work in x_new's dtype
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
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1, dtype=torch.float32)
    return weights.to(scores.dtype) @ values, (keys, values)
