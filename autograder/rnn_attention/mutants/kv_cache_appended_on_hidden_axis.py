"""Copies torch.cat(..., dim=2) from a multi-head implementation whose keys are (batch, heads, seq,
head_dim); here the cache is (batch, past, hidden), so dim 2 is the hidden axis, not time.

question: kv_cache_attention_tests
replaces: kv_cache_attention
contract: the new positions are appended along axis 1 (time): the cache becomes (batch, past + new, hidden)
"""


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=2)
        values = torch.cat([cache[1], values], dim=2)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
