"""Builds the mask as an additive float mask, torch.full((new, total), float("-inf")).triu(past + 1), on the scores'
device but without their dtype; adding it promotes bfloat16 or float16 scores to float32, so the weights are float32
and the product with the half-precision values fails (it only works for float32 and float64 inputs).

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
"""


def cached_causal_attention(attention, x_new, cache=None):
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)
        values = torch.cat([cache[1], values], dim=1)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    mask = torch.full((new, total), float("-inf"), device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores + mask, dim=-1)
    return weights @ values, (keys, values)
