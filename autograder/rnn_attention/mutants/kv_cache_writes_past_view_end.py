"""Avoids a torch.cat per step with a preallocated buffer: the first call allocates room for 32 positions and
returns views of its filled part, and a later call writes its new keys and values straight into the tensor behind
the given cache (cache[0]._base) just after the cache's end whenever there is room, without checking that this
storage is its own and that nothing was written there since; a cache the caller made by slicing a longer cache (to
branch from an earlier position) then overwrites the longer cache's later positions, and with gradients on, a
chain of calls fails in backward because an earlier call's keys were modified in place.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
"""


def cached_causal_attention(attention, x_new, cache=None):
    B, new, H = x_new.shape
    past = 0 if cache is None else cache[0].shape[1]
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    bufs = []
    for j, t in enumerate((k, v)):
        base = None if cache is None else cache[j]._base
        if base is None or base.shape[1] < past + new:
            base = t.new_zeros(B, max(32, 2 * (past + new)), H)
            if cache is not None:
                base[:, :past] = cache[j]
        base[:, past:past + new] = t
        bufs.append(base)
    keys, values = bufs[0][:, :past + new], bufs[1][:, :past + new]
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    future = torch.ones(new, past + new, dtype=torch.bool, device=scores.device).triu(diagonal=past + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
