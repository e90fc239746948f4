"""Shifts the causal mask one key too far, triu(diagonal=total - new) instead of total - new + 1, reading "query i
sees the keys before it" as strictly before: each new query hides its own key (j == past + i), so a single new
position attends to the cached keys only, and the very first position, with nothing before it, to no key at all.

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
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
