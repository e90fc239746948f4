"""The student filters the scores with top-k first and only then branches on the temperature, reasoning
that the argmax always survives top-k. But top_k is then used even when temperature is 0: a top_k larger
than the vocabulary (harmless for greedy) makes topk raise instead of returning the argmax.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-c
stated: top_k ... Ignored when temperature is 0.
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    logits = scores
    if top_k is not None:
        kth_best = logits.topk(top_k, dim=-1).values[:, -1:]
        logits = logits.masked_fill(logits < kth_best, float("-inf"))
    if temperature == 0:
        return logits.argmax(dim=-1)
    scaled = logits / temperature
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
