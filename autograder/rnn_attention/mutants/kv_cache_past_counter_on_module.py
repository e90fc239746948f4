"""Counts the positions seen so far in an attribute of the attention module (reset when cache is None, advanced by
the number of new positions) and shifts the causal mask by that counter instead of by the length of the cache it
was given, so when two sequences are decoded in turn with the same layer, a chunk of several positions gets the
other sequence's offset.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
contract: use the layer's Wq, Wk, Wv and hidden_size, change nothing in it
"""


def cached_causal_attention(attention, x_new, cache=None):
    if cache is None:
        attention.seen = 0
    past = attention.seen
    attention.seen = past + x_new.shape[1]
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)
        values = torch.cat([cache[1], values], dim=1)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=past + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
