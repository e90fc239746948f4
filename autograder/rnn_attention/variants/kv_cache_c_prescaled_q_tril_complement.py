"""Scales the queries by 1/sqrt(hidden) before the product (torch.bmm), builds the cache with torch.hstack, and
masks with the complement of a tril "may see" matrix (tril(diagonal=past)) before F.softmax.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
"""


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new) * (1.0 / math.sqrt(attention.hidden_size))
    k, v = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k, v = torch.hstack([cache[0], k]), torch.hstack([cache[1], v])
    scores = torch.bmm(q, k.mT)
    new, total = scores.shape[1:]
    sees = torch.ones(new, total, dtype=torch.bool, device=scores.device).tril(total - new)
    return torch.bmm(F.softmax(scores.masked_fill(~sees, float("-inf")), dim=-1), v), (k, v)
