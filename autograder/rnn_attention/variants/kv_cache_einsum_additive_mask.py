"""Uses einsum for the scores and the context and an additive float mask of 0 and -inf made with torch.full in the scores' dtype and device (triu(diagonal=past + 1)), and scales the query before the product.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
"""


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new) / math.sqrt(attention.hidden_size)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        past_keys, past_values = cache
        keys, values = torch.cat([past_keys, keys], 1), torch.cat([past_values, values], 1)
    new, total = q.shape[1], keys.shape[1]
    mask = torch.full((new, total), float("-inf"), dtype=q.dtype, device=q.device).triu(total - new + 1)
    scores = torch.einsum("bih,bjh->bij", q, keys) + mask
    return torch.einsum("bij,bjh->bih", scores.softmax(-1), values), (keys, values)
