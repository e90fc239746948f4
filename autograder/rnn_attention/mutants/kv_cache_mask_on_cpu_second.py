"""Builds the shifted causal mask from torch.arange without a device, so the mask is always on the CPU: on a GPU the masked_fill of the scores with a CPU mask fails.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: a mask you make is made on x_new's device
"""


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)
        values = torch.cat([cache[1], values], dim=1)
    new, total = x_new.shape[1], keys.shape[1]
    past = total - new
    future = torch.arange(total)[None, :] > (past + torch.arange(new))[:, None]   # (new, total): j > past + i
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
