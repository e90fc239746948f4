"""Loops over the new queries (query i sees keys[:, :past + i + 1], no mask) and writes the rows into a
torch.zeros(batch, new, hidden, device=...) buffer made without dtype: bfloat16 inputs get a float32 context and
float64 inputs are rounded to float32 precision.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
stated: "context and cache come back in them, and a mask or buffer you make is made like them"
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k = torch.cat([cache[0], k], dim=1)
        v = torch.cat([cache[1], v], dim=1)
    batch, new, hidden = x_new.shape
    past = k.shape[1] - new
    context = torch.zeros(batch, new, hidden, device=x_new.device)
    for i in range(new):
        seen_k, seen_v = k[:, :past + i + 1], v[:, :past + i + 1]
        w = torch.softmax(q[:, i:i + 1] @ seen_k.transpose(1, 2) / math.sqrt(hidden), dim=-1)
        context[:, i:i + 1] = w @ seen_v
    return context, (k, v)
