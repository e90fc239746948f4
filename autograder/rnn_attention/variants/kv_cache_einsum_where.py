"""Writes the scores and the context with torch.einsum and builds the mask from absolute positions, key index >
past + query index, applying it with torch.where and F.softmax.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
"""


def cached_causal_attention(attention, x_new, cache=None):
    past = 0 if cache is None else cache[0].shape[1]
    new = x_new.shape[1]
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys, values = torch.cat([cache[0], keys], 1), torch.cat([cache[1], values], 1)
    q = attention.Wq(x_new) / math.sqrt(attention.hidden_size)
    scores = torch.einsum("bqh,bkh->bqk", q, keys)
    query_pos = torch.arange(past, past + new, device=x_new.device)
    key_pos = torch.arange(past + new, device=x_new.device)
    hidden = key_pos[None, :] > query_pos[:, None]
    scores = torch.where(hidden, torch.full_like(scores, float("-inf")), scores)
    weights = F.softmax(scores, dim=-1)
    return torch.einsum("bqk,bkh->bqh", weights, values), (keys, values)
