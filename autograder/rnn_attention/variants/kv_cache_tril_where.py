"""Builds the allowed keys as a boolean tril(diagonal=past) of shape (new, past + new) on the scores' device and hides the others with torch.where(allowed, scores, -inf) instead of masked_fill of triu.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    past = 0 if cache is None else cache[0].shape[1]
    keys = k if cache is None else torch.cat((cache[0], k), dim=1)
    values = v if cache is None else torch.cat((cache[1], v), dim=1)
    scores = torch.matmul(q, keys.transpose(-2, -1)) / attention.hidden_size ** 0.5
    allowed = torch.ones(x_new.shape[1], past + x_new.shape[1], dtype=torch.bool, device=x_new.device).tril(past)
    weights = F.softmax(torch.where(allowed, scores, float("-inf")), dim=-1)
    return torch.matmul(weights, values), (keys, values)
