"""Freezes the layer with attention.requires_grad_(False) because cached decoding is "inference only": the caller's Wq, Wk, Wv stop receiving gradients (for this and every later use of the layer), and the layer is changed.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: change nothing in the attention layer; gradients of the context reach Wq, Wk, Wv
"""


def cached_causal_attention(attention, x_new, cache=None):
    attention.requires_grad_(False)
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)
        values = torch.cat([cache[1], values], dim=1)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
