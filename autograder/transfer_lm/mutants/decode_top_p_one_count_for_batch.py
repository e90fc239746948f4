"""Counts each row's nucleus size but cuts the sorted ids with one integer for the whole batch (the
largest count, so that a plain slice of the ranked ids works), so rows whose nucleus is smaller keep
extra ids.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            n_keep = int(((ranked.cumsum(dim=-1) - ranked) < top_p).sum(dim=-1).max())
            scaled = scaled.scatter(-1, order[:, n_keep:], float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
