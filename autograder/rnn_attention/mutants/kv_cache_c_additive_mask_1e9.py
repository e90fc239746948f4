"""Adds a finite -1e9 penalty to the future keys' scores (the Hugging Face habit) instead of masking them with
-inf; a masked key whose score exceeds about 1e9 still gets weight (e.g. inputs scaled by 1e5, chunk of 3).

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
    scores = q @ k.transpose(1, 2) / math.sqrt(attention.hidden_size)
    future = torch.ones(new, total, dtype=x_new.dtype, device=x_new.device).triu(total - new + 1)
    weights = torch.softmax(scores + future * -1e9, dim=-1)
    return weights @ v, (k, v)
