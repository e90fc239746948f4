"""Attends over the cached and new keys correctly but returns the cache it was given, so the next call
never sees this call's positions (and after a first call with None, no cache is ever kept).

question: kv_cache_attention_tests
replaces: kv_cache_attention
contract: the returned cache holds the new positions too: (batch, past + new, hidden)
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
    return weights @ values, cache
