"""Builds the grown cache by allocating new (batch, past + new, hidden) tensors with new_empty and copying the old cache and the new projections into their slices (differentiable copies into fresh tensors), and writes the softmax by hand with the row maximum subtracted.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-b
"""


def cached_causal_attention(attention, x_new, cache=None):
    B, new, H = x_new.shape
    past = 0 if cache is None else cache[0].shape[1]
    keys, values = x_new.new_empty(B, past + new, H), x_new.new_empty(B, past + new, H)
    if past:
        keys[:, :past], values[:, :past] = cache[0], cache[1]
    keys[:, past:], values[:, past:] = attention.Wk(x_new), attention.Wv(x_new)
    scores = torch.bmm(attention.Wq(x_new), keys.transpose(1, 2)) / math.sqrt(H)
    hidden = torch.arange(past + new, device=x_new.device) > torch.arange(past, past + new, device=x_new.device)[:, None]
    scores = scores.masked_fill(hidden, float("-inf"))
    e = (scores - scores.amax(dim=-1, keepdim=True)).exp()
    return torch.bmm(e / e.sum(dim=-1, keepdim=True), values), (keys, values)
