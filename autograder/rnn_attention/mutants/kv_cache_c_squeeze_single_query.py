"""Gives the one-new-position step a fast path that squeezes the query axis with .squeeze() (no dim); with a
batch of one (or a first call of one position) the batch axis is squeezed too and the shapes go wrong.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
stated: "x_new (batch, new, hidden) ... context (batch, new, hidden)"
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    new, total = x_new.shape[1], k.shape[1]
    scores = q @ k.transpose(1, 2) / math.sqrt(attention.hidden_size)
    if new == 1:
        weights = torch.softmax(scores.squeeze(), dim=-1)                 # (B, total)
        return weights.unsqueeze(1) @ v, (k, v)
    future = torch.ones(new, total, dtype=torch.bool, device=x_new.device).triu(total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ v, (k, v)
