"""Takes the softmax over every key first, then zeroes the future keys' weights and divides each row by its new sum
so that it sums to 1 again; that equals masking before the softmax in exact arithmetic, but when a hidden future
key has a much larger score than the visible ones their weights underflow to 0 before the division and the row
becomes 0/0 (NaN) or loses precision.

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
    weights = torch.softmax(scores, dim=-1).masked_fill(future, 0.0)
    weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights @ values, (keys, values)
