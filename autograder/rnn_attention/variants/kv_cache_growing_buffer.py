"""Keeps the cache in a preallocated buffer that doubles its capacity when full and returns views of its filled
part, writing each step's keys and values into it in place (the contract lets the given cache be updated in
place); it writes in place only into a buffer it made, when the given cache is exactly that buffer's filled part
and no gradient is being recorded, and otherwise falls back to concatenation.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
"""


def cached_causal_attention(attention, x_new, cache=None):
    B, new, H = x_new.shape
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    past = 0 if cache is None else cache[0].shape[1]

    def ours(t):
        base = t._base
        return (base is not None and getattr(base, "kv_filled", None) == past and t.data_ptr() == base.data_ptr()
                and t.stride() == base.stride())

    in_place = (not torch.is_grad_enabled() or not (k.requires_grad or v.requires_grad)) and (
        cache is None or (ours(cache[0]) and ours(cache[1])))
    if in_place:
        bufs = []
        for j, t in enumerate((k, v)):
            buf = None if cache is None else cache[j]._base
            if buf is None or buf.shape[1] < past + new or buf.dtype != t.dtype or buf.device != t.device:
                grown = t.new_empty(B, max(2 * (past + new), 16), H)
                if cache is not None:
                    grown[:, :past] = cache[j]
                buf = grown
            buf[:, past:past + new] = t
            buf.kv_filled = past + new
            bufs.append(buf)
        keys, values = bufs[0][:, :past + new], bufs[1][:, :past + new]
    elif cache is None:
        keys, values = k, v
    else:
        keys, values = torch.cat([cache[0], k], dim=1), torch.cat([cache[1], v], dim=1)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    future = torch.ones(new, past + new, dtype=torch.bool, device=scores.device).triu(diagonal=past + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
