"""Reuses the full computation's causal mask, triu(diagonal=1), on the (new, past + new) scores of a call
with a cache: the new queries are treated as positions 0 .. new - 1, so they lose the cached keys (a single
new position sees only key 0).

question: kv_cache_attention_tests
replaces: kv_cache_attention
"""


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)
        values = torch.cat([cache[1], values], dim=1)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
