"""Takes the softmax in float32 for stability, torch.softmax(scores, dim=-1, dtype=torch.float32), as the
Hugging Face attention code does, but forgets to cast the weights back to the values' dtype: float64 (and half
precision) inputs then multiply float32 weights by values of another dtype and fail.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
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
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1, dtype=torch.float32)
    return weights @ values, (keys, values)
