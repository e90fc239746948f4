"""Puts the layer in eval mode for the cached step and back with attention.train() at the end: a layer that came in eval mode (as in translate_cached) leaves in training mode.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: leave the layer's mode as it is
"""


def cached_causal_attention(attention, x_new, cache=None):
    attention.eval()
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)
        values = torch.cat([cache[1], values], dim=1)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    attention.train()
    return weights @ values, (keys, values)
