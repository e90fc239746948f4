"""Handles "p = 1 keeps every id" with an early return that draws from softmax(scores / T) straight away; written
before the top-k block, it skips top-k too, so top_k=2 with top_p=1.0 can draw any id of the row.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-g
stated: "With top_k as well, top-k comes first and top-p then works on the renormalised probabilities of the ids top-k kept."
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p == 1:   # p = 1 keeps every id: nothing to cut
            return torch.multinomial(torch.softmax(scaled, dim=-1), 1, generator=generator).squeeze(-1)
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    if top_p is not None:
        ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
        reached = ranked.cumsum(dim=-1) >= top_p
        cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
        cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
        scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
