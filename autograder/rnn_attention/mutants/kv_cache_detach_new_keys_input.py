"""Projects the keys and values of the new positions from x_new.detach(), so that what goes into the cache holds no graph back into the decoder: the gradient of the context with respect to x_new then comes through the query only.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: gradients of the context reach x_new (no detach)
"""


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new)
    x_cached = x_new.detach()
    keys, values = attention.Wk(x_cached), attention.Wv(x_cached)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)
        values = torch.cat([cache[1], values], dim=1)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
