"""Updates the cache in place by item assignment (cache[0] = ..., cache[1] = ...) and returns it, making a list only on the first call: a cache given as a tuple pair (keys, values), as the docstring describes it, raises TypeError.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
"""


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new)
    k_new, v_new = attention.Wk(x_new), attention.Wv(x_new)
    if cache is None:
        cache = [k_new, v_new]
    else:
        cache[0] = torch.cat([cache[0], k_new], dim=1)
        cache[1] = torch.cat([cache[1], v_new], dim=1)
    keys, values = cache
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, cache
