"""No mask at all: a loop over the new queries, query i attending to the key/value prefix keys[:, :past + i + 1]
only, the rows joined with torch.cat along the time axis.

question: kv_cache_attention_tests
replaces: kv_cache_attention
hunt: 2026-12-c
"""


def cached_causal_attention(attention, x_new, cache=None):
    q, k, v = attention.Wq(x_new), attention.Wk(x_new), attention.Wv(x_new)
    if cache is not None:
        k, v = torch.cat([cache[0], k], dim=1), torch.cat([cache[1], v], dim=1)
    past = k.shape[1] - x_new.shape[1]
    rows = []
    for i in range(x_new.shape[1]):
        seen = past + i + 1
        w = torch.softmax(q[:, i:i + 1] @ k[:, :seen].transpose(-1, -2) / math.sqrt(attention.hidden_size), dim=-1)
        rows.append(w @ v[:, :seen])
    return torch.cat(rows, dim=1), (k, v)
