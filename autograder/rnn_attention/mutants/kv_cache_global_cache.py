"""Keeps the cache in a global variable (KV_CACHE) that the function appends to and returns, starting it afresh
when cache is None; it works for one layer, but every layer of a decoder writes to the same global, so in
decoder_step the second layer's keys end up in the first layer's cache and the other way round.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
"""


def cached_causal_attention(attention, x_new, cache=None):
    global KV_CACHE
    q = attention.Wq(x_new)
    k, v = attention.Wk(x_new), attention.Wv(x_new)
    if cache is None:
        KV_CACHE = (k, v)
    else:
        KV_CACHE = (torch.cat([KV_CACHE[0], k], dim=1), torch.cat([KV_CACHE[1], v], dim=1))
    keys, values = KV_CACHE
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, KV_CACHE
