"""Applies the three projections with F.linear on the layers' weights and biases, grows the cache into a fresh
tensor (new_empty + slice assignment), and takes the last `new` rows of the full-length triu(1) causal mask.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k_new, v_new = (F.linear(x_new, layer.weight, layer.bias)
                       for layer in (attention.Wq, attention.Wk, attention.Wv))
    batch, new, hidden = x_new.shape
    past = 0 if cache is None else cache[0].shape[1]
    k = x_new.new_empty(batch, past + new, hidden)
    v = x_new.new_empty(batch, past + new, hidden)
    if cache is not None:
        k[:, :past], v[:, :past] = cache[0], cache[1]
    k[:, past:], v[:, past:] = k_new, v_new
    total = past + new
    future = torch.ones(total, total, dtype=torch.bool, device=x_new.device).triu(1)[past:]
    scores = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(attention.hidden_size)
    return torch.matmul(scores.masked_fill(future, -math.inf).softmax(dim=-1), v), (k, v)
