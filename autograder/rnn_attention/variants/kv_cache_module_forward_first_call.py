"""On the first call (cache None) hands the whole prefix to the layer's own forward, attention(x, x, x), which
already applies the causal mask, and caches Wk(x), Wv(x); with a cache it lets the new queries attend to the cached
keys followed by the new ones, masking only the new keys that lie after each query (a (new, new) upper triangle).

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
"""


def cached_causal_attention(attention, x_new, cache=None):
    k_new, v_new = attention.Wk(x_new), attention.Wv(x_new)
    if cache is None:
        context, _ = attention(x_new, x_new, x_new)
        return context, (k_new, v_new)
    keys = torch.cat((cache[0], k_new), dim=-2)
    values = torch.cat((cache[1], v_new), dim=-2)
    q = attention.Wq(x_new)
    scores = torch.matmul(q, keys.transpose(-1, -2)) / attention.hidden_size ** 0.5
    new = x_new.shape[1]
    if new > 1:
        later = torch.ones(new, new, dtype=torch.bool, device=x_new.device).triu(1)
        scores[..., -new:] = scores[..., -new:].masked_fill(later, float("-inf"))
    return torch.matmul(scores.softmax(dim=-1), values), (keys, values)
