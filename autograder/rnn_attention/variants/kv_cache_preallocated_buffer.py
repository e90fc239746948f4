"""Keeps keys and values in buffers with room for more positions, as a static cache does, and returns
views of their filled part; a call whose cache is such a view with room left writes the new positions in
place instead of concatenating, unless gradients are being recorded (an earlier call's keys may be saved for
backward), when it copies into a fresh buffer. A single new position skips the mask (it sees every key).

question: kv_cache_attention_tests
replaces: kv_cache_attention
"""


def cached_causal_attention(attention, x_new, cache=None):
    B, new, H = x_new.shape
    q, k_new, v_new = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    past = 0 if cache is None else cache[0].shape[1]
    total = past + new
    bases = [None if cache is None else t._base for t in (cache or (None, None))]
    reuse = cache is not None and not torch.is_grad_enabled()
    if not reuse or any(b is None or b.shape[1] < total or b.data_ptr() != t.data_ptr() for b, t in zip(bases, cache)):
        room = max(2 * total, 16)
        bases = [x_new.new_zeros(B, room, H), x_new.new_zeros(B, room, H)]
        if cache is not None:
            bases[0][:, :past], bases[1][:, :past] = cache[0], cache[1]
    bases[0][:, past:total], bases[1][:, past:total] = k_new, v_new
    keys, values = bases[0][:, :total], bases[1][:, :total]
    scores = torch.einsum("bqh,bkh->bqk", q, keys) / attention.hidden_size**0.5
    if new > 1:
        query_position = torch.arange(past, total, device=scores.device)[:, None]
        scores = scores.masked_fill(torch.arange(total, device=scores.device)[None, :] > query_position, -torch.inf)
    return torch.einsum("bqk,bkh->bqh", scores.softmax(-1), values), (keys, values)
