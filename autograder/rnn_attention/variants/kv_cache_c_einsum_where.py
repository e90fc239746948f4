"""Einsum for the scores and the context, and a "may see" mask from two aranges (key j <= past + i) applied
with torch.where against a -inf scalar tensor in the scores' dtype, instead of triu + masked_fill.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k, v = torch.cat((cache[0], k), 1), torch.cat((cache[1], v), 1)
    new, total = q.shape[1], k.shape[1]
    scores = torch.einsum("bih,bjh->bij", q, k) / attention.hidden_size ** 0.5
    rows = torch.arange(total - new, total, device=x_new.device)
    sees = torch.arange(total, device=x_new.device)[None, :] <= rows[:, None]      # (new, total)
    scores = torch.where(sees, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
    return torch.einsum("bij,bjh->bih", scores.softmax(-1), v), (k, v)
