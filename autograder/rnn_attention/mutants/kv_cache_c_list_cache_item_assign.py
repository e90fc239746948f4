"""Updates the cache in place by item assignment (cache[0] = torch.cat(...)), returning a list on the first
call; a cache given as a tuple pair (keys, values), e.g. (Wk(x), Wv(x)), raises TypeError.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
stated: "cache: None when no position came before, else a pair (keys, values)"
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is None:
        cache = [k, v]
    else:
        cache[0] = torch.cat([cache[0], k], dim=1)
        cache[1] = torch.cat([cache[1], v], dim=1)
    keys, values = cache
    new, total = x_new.shape[1], keys.shape[1]
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    future = torch.ones(new, total, dtype=torch.bool, device=x_new.device).triu(total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, cache
