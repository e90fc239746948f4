"""Builds an additive mask of 0 and -inf with torch.full on the right device but in the default dtype
(float32); for bfloat16 inputs the scores are promoted to float32 and the weights @ values matmul fails.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
stated: "Work in x_new's dtype ... (float32, float64 or bfloat16 ...) ... a mask or buffer you make is made like them."
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    new, total = x_new.shape[1], k.shape[1]
    mask = torch.full((new, total), float("-inf"), device=x_new.device).triu(total - new + 1)
    weights = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(attention.hidden_size) + mask, dim=-1)
    return weights @ v, (k, v)
