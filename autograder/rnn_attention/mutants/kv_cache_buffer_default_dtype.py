"""Grows the cache by allocating torch.zeros(batch, past + new, hidden) and copying the cached and the new keys and
values into it, without dtype or device: the grown cache is always float32 on the CPU, so float64 inputs lose
precision in the cache and no longer match their queries' dtype, and GPU inputs meet CPU keys.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
"""


def cached_causal_attention(attention, x_new, cache=None):
    B, new, H = x_new.shape
    past = 0 if cache is None else cache[0].shape[1]
    keys, values = torch.zeros(B, past + new, H), torch.zeros(B, past + new, H)
    if cache is not None:
        keys[:, :past], values[:, :past] = cache[0], cache[1]
    keys[:, past:], values[:, past:] = attention.Wk(x_new), attention.Wv(x_new)
    q = attention.Wq(x_new)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    future = torch.ones(new, past + new, dtype=torch.bool, device=scores.device).triu(diagonal=past + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
