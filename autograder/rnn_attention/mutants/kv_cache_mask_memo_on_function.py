"""Memoises the shifted masks on the function itself, keyed by (new, total), to avoid rebuilding them each step: state kept between calls, and a mask made on one device is reused for a call on another (CPU then GPU) and the masked_fill fails.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: keep nothing between calls (on the function); a mask you make is made on x_new's device
"""


def cached_causal_attention(attention, x_new, cache=None):
    masks = cached_causal_attention.__dict__.setdefault("masks", {})
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)
        values = torch.cat([cache[1], values], dim=1)
    new, total = x_new.shape[1], keys.shape[1]
    if (new, total) not in masks:
        masks[new, total] = torch.ones(new, total, dtype=torch.bool, device=x_new.device).triu(
            diagonal=total - new + 1)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    weights = torch.softmax(scores.masked_fill(masks[new, total], float("-inf")), dim=-1)
    return weights @ values, (keys, values)
