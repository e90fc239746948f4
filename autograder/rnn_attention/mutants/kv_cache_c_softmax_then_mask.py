"""Takes the softmax over all keys, then zeroes the future keys' weights and renormalises the rows; when a
future key's score dominates (inputs scaled by 100), the visible keys' weights underflow to 0 and the row is 0/0 = NaN.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
stated: "Masked keys get weight exactly 0, however large their scores."
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    new, total = x_new.shape[1], k.shape[1]
    weights = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(attention.hidden_size), dim=-1)
    seen = torch.ones(new, total, dtype=weights.dtype, device=weights.device).tril(total - new)
    weights = weights * seen
    weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights @ v, (k, v)
