"""Builds the full computation's (total, total) lower-triangular "allowed" mask and keeps its last `new` rows, the
rows of the new queries, then masks with masked_fill on the negated mask; keys and values are concatenated in a
list comprehension.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
"""


def cached_causal_attention(attention, x_new, cache=None):
    new_k, new_v = attention.Wk(x_new), attention.Wv(x_new)
    keys, values = (new_k, new_v) if cache is None else [torch.cat(pair, dim=1) for pair in zip(cache, (new_k, new_v))]
    total, new = keys.shape[1], x_new.shape[1]
    allowed = torch.tril(torch.ones(total, total, dtype=torch.bool, device=keys.device))[total - new:]
    scores = attention.Wq(x_new) @ keys.mT / math.sqrt(keys.shape[-1])
    weights = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
    return weights @ values, (keys, values)
