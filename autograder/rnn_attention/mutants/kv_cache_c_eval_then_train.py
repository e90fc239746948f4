"""Switches the layer to eval() for decoding and "restores" it with train() at the end; a layer that came in
eval mode (the usual case when generating) leaves in training mode.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
stated: "change nothing in it (add no attribute, leave its mode as it is)"
"""


def cached_causal_attention(attention, x_new, cache=None):
    attention.eval()
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    new, total = x_new.shape[1], k.shape[1]
    scores = q @ k.transpose(1, 2) / math.sqrt(attention.hidden_size)
    future = torch.ones(new, total, dtype=torch.bool, device=x_new.device).triu(total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    attention.train()
    return weights @ v, (k, v)
