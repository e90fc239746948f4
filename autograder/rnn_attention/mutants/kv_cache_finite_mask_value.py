"""Hides the future keys with a large finite score (-1e9) instead of -inf: when the real scores are themselves very negative the hidden keys get weight, not exactly 0.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: masked keys get weight exactly 0, however large their scores
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
    weights = torch.softmax(scores.masked_fill(future, -1e9), dim=-1)
    return weights @ values, (keys, values)
