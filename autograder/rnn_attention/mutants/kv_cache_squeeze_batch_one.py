"""Takes a fast path for one new position that squeezes the query with q.squeeze() and uses einsum over (batch, hidden): with a batch of one word (translate_cached groups words by length, so a group can hold a single word) the batch axis is squeezed away too and the step fails.

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
    scale = math.sqrt(attention.hidden_size)
    if x_new.shape[1] == 1:                               # one query sees every key: no mask
        scores = torch.einsum("bh,bth->bt", q.squeeze(), keys) / scale
        context = torch.einsum("bt,bth->bh", torch.softmax(scores, dim=-1), values)
        return context.unsqueeze(1), (keys, values)
    scores = q @ keys.transpose(1, 2) / scale
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
