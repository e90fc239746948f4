"""Updates the given cache in place when it is a list (cache[0], cache[1] replaced by the grown tensors) and returns that same list, building a new tuple otherwise; the context is the stacked result of one query at a time, each over the keys it may see (keys[:, :past + i + 1]), so no mask tensor at all.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    past = 0 if cache is None else cache[0].shape[1]
    keys = k if cache is None else torch.cat([cache[0], k], dim=1)
    values = v if cache is None else torch.cat([cache[1], v], dim=1)
    contexts = []
    for i in range(x_new.shape[1]):
        seen = past + i + 1
        w = torch.softmax(q[:, i:i + 1] @ keys[:, :seen].transpose(1, 2) / math.sqrt(attention.hidden_size), -1)
        contexts.append(w @ values[:, :seen])
    if isinstance(cache, list):
        cache[0], cache[1] = keys, values
        return torch.cat(contexts, dim=1), cache
    return torch.cat(contexts, dim=1), (keys, values)
