"""Writes the softmax by hand as exp(scores) over its row sum, with the masked scores at -inf (exp gives exactly 0), but without subtracting the row maximum: scores above about 88 overflow exp to inf and the weights become nan.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
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
    e = scores.masked_fill(future, float("-inf")).exp()
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ values, (keys, values)
