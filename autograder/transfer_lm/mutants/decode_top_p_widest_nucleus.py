"""Works out how many ranked ids to keep per row, then keeps the same number in every row, the largest count
in the batch, so that the kept ranks form a rectangle: rows whose nucleus is smaller keep ids they should cut.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-b
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
            kept_ids = order[:, :n_keep]
            keep = torch.zeros_like(scaled, dtype=torch.bool).scatter(-1, kept_ids, True)
            scaled = scaled.masked_fill(~keep, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
