"""Without a cache it simply calls the layer's own forward attention(x_new, x_new, x_new) and caches Wk(x_new), Wv(x_new); with a cache, one new position takes a maskless path and a longer chunk compares arange positions (key j hidden when j > past + i).

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
"""


def cached_causal_attention(attention, x_new, cache=None):
    k_new, v_new = attention.Wk(x_new), attention.Wv(x_new)
    if cache is None:
        return attention(x_new, x_new, x_new)[0], (k_new, v_new)
    keys, values = torch.cat([cache[0], k_new], dim=1), torch.cat([cache[1], v_new], dim=1)
    scores = attention.Wq(x_new) @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = x_new.shape[1], keys.shape[1]
    if new > 1:
        j = torch.arange(total, device=x_new.device)
        i = torch.arange(total - new, total, device=x_new.device)
        scores = scores.masked_fill(j[None, :] > i[:, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ values, (keys, values)
