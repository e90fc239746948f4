"""Detaches the cached keys and values before concatenating them, so that the cache does not drag the earlier steps' graphs along: gradients of the context no longer reach the cached keys and values (nor, through them, the earlier inputs).

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: gradients of the context reach the cached keys and values (no detach)
"""


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0].detach(), keys], dim=1)
        values = torch.cat([cache[1].detach(), values], dim=1)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
