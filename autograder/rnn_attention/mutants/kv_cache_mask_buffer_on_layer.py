"""Registers a big causal mask once as a buffer on the attention layer (as the causal layer was allowed to) and slices it for each call: the layer is changed (a new buffer in its state_dict, so a saved decoder no longer loads into a fresh one), and positions beyond the buffer's 256 fail.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: change nothing in the attention layer (add no attribute)
"""


def cached_causal_attention(attention, x_new, cache=None):
    if not hasattr(attention, "kv_future"):
        attention.register_buffer(
            "kv_future", torch.ones(256, 256, dtype=torch.bool, device=x_new.device).triu(diagonal=1))
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)
        values = torch.cat([cache[1], values], dim=1)
    new, total = x_new.shape[1], keys.shape[1]
    future = attention.kv_future[total - new:total, :total]
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
