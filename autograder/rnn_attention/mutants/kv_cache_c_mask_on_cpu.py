"""Builds the boolean causal mask with torch.ones(new, total, dtype=torch.bool) and forgets device=; on a GPU
(or any non-CPU device) masked_fill refuses a CPU mask of more than one element as soon as new > 1.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
stated: "Work in x_new's dtype and on its device ... (float32, float64 or bfloat16; CPU or GPU) ... a mask or buffer you make is made like them."
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    new, total = x_new.shape[1], k.shape[1]
    scores = q @ k.transpose(1, 2) / math.sqrt(attention.hidden_size)
    future = torch.ones(new, total, dtype=torch.bool).triu(total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ v, (k, v)
