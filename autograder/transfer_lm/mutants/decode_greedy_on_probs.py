"""For greedy decoding the student takes the most probable id, argmax of softmax(scores), instead of the argmax of
the scores. Scores that differ by less than the probabilities' rounding become equal probabilities, and the smaller
id wins where a larger score should.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-d
stated: temperature: 0 (or 0.0) means greedy decoding: each row's id of its largest score, the smallest such id when several tie (torch.argmax over the vocabulary)
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.softmax(scores, dim=-1).argmax(dim=-1)   # the most probable id
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
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
