"""Keeps the growing keys and values on the attention module itself (attention.k_cache, attention.v_cache), the
way a layer_past attribute works in some tutorials, and reads them back from there on every later call; the cache
argument is only used to tell whether this is the first call, so two sequences decoded in turn with the same layer
(or a restart from a cache kept aside) attend to each other's keys.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
contract: use the layer's Wq, Wk, Wv and hidden_size, change nothing in it
"""


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new)
    k, v = attention.Wk(x_new), attention.Wv(x_new)
    if cache is None:
        attention.k_cache, attention.v_cache = k, v
    else:
        attention.k_cache = torch.cat([attention.k_cache, k], dim=1)
        attention.v_cache = torch.cat([attention.v_cache, v], dim=1)
    keys, values = attention.k_cache, attention.v_cache
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
