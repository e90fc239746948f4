"""Computes the softmax in float32 for stability (the mixed-precision habit) and casts the weights back to the
values' dtype; float64 inputs lose precision (errors near 1e-8 instead of 1e-16).

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
stated: "Work in x_new's dtype and on its device, as the layer's forward does (float32, float64 or bfloat16"
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    new, total = x_new.shape[1], k.shape[1]
    scores = q @ k.transpose(1, 2) / math.sqrt(attention.hidden_size)
    future = torch.ones(new, total, dtype=torch.bool, device=x_new.device).triu(total - new + 1)
    weights = torch.softmax(scores.float().masked_fill(future, float("-inf")), dim=-1).to(v.dtype)
    return weights @ v, (k, v)
