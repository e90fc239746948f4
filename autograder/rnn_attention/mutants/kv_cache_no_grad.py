"""Wraps the whole step in torch.no_grad(), since a key/value cache is "for inference": the context comes back without a graph, so no gradient reaches x_new, the cache or Wq, Wk, Wv.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: keep it differentiable (no torch.no_grad)
"""


def cached_causal_attention(attention, x_new, cache=None):
    with torch.no_grad():
        q = attention.Wq(x_new)
        keys, values = attention.Wk(x_new), attention.Wv(x_new)
        if cache is not None:
            keys = torch.cat([cache[0], keys], dim=1)
            values = torch.cat([cache[1], values], dim=1)
        scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
        new, total = scores.shape[-2:]
        future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
        weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return weights @ values, (keys, values)
