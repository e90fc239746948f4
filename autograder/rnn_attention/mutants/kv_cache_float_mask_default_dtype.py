"""Adds a float mask of 0 and -inf made with torch.full in the default dtype (float32): with bfloat16 inputs the scores are promoted to float32 and the product with the bfloat16 values fails (float64 silently works).

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
stated: work in x_new's dtype; a mask you make is made like it
"""


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)
        values = torch.cat([cache[1], values], dim=1)
    new, total = x_new.shape[1], keys.shape[1]
    mask = torch.full((new, total), float("-inf"), device=x_new.device).triu(diagonal=total - new + 1)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size) + mask
    weights = torch.softmax(scores, dim=-1)
    return weights @ values, (keys, values)
