"""Makes sure the masked weights are exactly 0 by writing zeros into the softmax output in place; softmax's
backward needs that output, so with gradients on (chunk of 2 or more new positions) backward raises.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
stated: "Keep it differentiable: gradients of the context reach x_new, the cached keys and values, and Wq, Wk, Wv"
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    new, total = x_new.shape[1], k.shape[1]
    scores = q @ k.transpose(1, 2) / math.sqrt(attention.hidden_size)
    future = torch.ones(new, total, dtype=torch.bool, device=x_new.device).triu(total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    weights.masked_fill_(future, 0.0)
    return weights @ v, (k, v)
