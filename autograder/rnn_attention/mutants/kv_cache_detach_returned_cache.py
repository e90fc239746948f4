"""Returns the grown cache detached ((keys.detach(), values.detach())) so that the cache kept between steps does not hold on to the graph: within one call the gradients are right, but the context of a later step no longer reaches the earlier steps' inputs or Wk, Wv through the cache.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: keep it differentiable (no detach): gradients reach the cached keys and values
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
    return weights @ values, (keys.detach(), values.detach())
