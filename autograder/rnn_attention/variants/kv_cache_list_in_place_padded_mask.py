"""Updates a cache given as a list in place (cache[0], cache[1] replaced by the grown tensors) and returns that same
list, which the contract allows; a tuple cache gets a new tuple. The mask is an additive float mask in the scores'
dtype: the (new, new) upper triangle of -inf, padded on the left with zeros for the past columns by F.pad.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is None:
        keys, values = k, v
    else:
        keys, values = torch.cat([cache[0], k], dim=1), torch.cat([cache[1], v], dim=1)
    new = x_new.size(1)
    past = keys.size(1) - new
    scores = torch.bmm(q, keys.transpose(1, 2)) * (1.0 / math.sqrt(attention.hidden_size))
    mask = torch.full((new, new), float("-inf"), dtype=scores.dtype, device=scores.device).triu(1)
    scores = scores + F.pad(mask, (past, 0))
    context = torch.bmm(torch.softmax(scores, dim=-1), values)
    if isinstance(cache, list):
        cache[0], cache[1] = keys, values
        return context, cache
    return context, (keys, values)
