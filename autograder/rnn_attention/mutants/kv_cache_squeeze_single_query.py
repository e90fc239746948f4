"""Treats one new position (new = 1) as a special case written with vectors, squeezing the scores with .squeeze()
and unsqueezing the weights back; with a batch of one the batch axis is squeezed away too (and the shapes no longer
line up), and on the very first step of decoding (cache None, one position) the softmax runs across the batch.

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
    scale = math.sqrt(attention.hidden_size)
    if x_new.shape[1] == 1:                                      # one query: it sees every key, no mask
        scores = (keys @ q.transpose(1, 2)).squeeze() / scale    # (B, total)
        weights = torch.softmax(scores, dim=-1)
        return weights.unsqueeze(1) @ values, (keys, values)
    scores = q @ keys.transpose(1, 2) / scale
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
