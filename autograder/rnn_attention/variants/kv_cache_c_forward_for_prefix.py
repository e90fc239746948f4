"""On the first call (cache None) the context is the layer's own forward attention(x_new, x_new, x_new)[0]; with a
cache it uses the reference's formula but masks only when more than one position is new (one new query sees
every key).

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
"""


def cached_causal_attention(attention, x_new, cache=None):
    k, v = attention.Wk(x_new), attention.Wv(x_new)
    if cache is None:
        return attention(x_new, x_new, x_new)[0], (k, v)
    k, v = torch.cat([cache[0], k], dim=1), torch.cat([cache[1], v], dim=1)
    scores = attention.Wq(x_new) @ k.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    if new > 1:
        future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(total - new + 1)
        scores = scores.masked_fill(future, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, (k, v)
