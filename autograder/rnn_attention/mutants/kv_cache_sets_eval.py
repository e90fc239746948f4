"""Puts the attention layer in evaluation mode (attention.eval()) at the start, since a cache is only used when
decoding, and never restores it: the values are right, but a layer (and through decoder_step every self-attention
layer of a decoder in training) is left with training False after the call.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-a
contract: use the layer's Wq, Wk, Wv and hidden_size, change nothing in it
"""


def cached_causal_attention(attention, x_new, cache=None):
    attention.eval()
    q = attention.Wq(x_new)
    keys, values = attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        keys = torch.cat([cache[0], keys], dim=1)
        values = torch.cat([cache[1], values], dim=1)
    scores = q @ keys.transpose(1, 2) / math.sqrt(attention.hidden_size)
    new, total = scores.shape[-2:]
    future = torch.ones(new, total, dtype=torch.bool, device=scores.device).triu(diagonal=total - new + 1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ values, (keys, values)
