"""The student counts how many ranked ids the nucleus needs and, to slice with an int, takes the largest count over
the batch; every row then keeps that many ids, so a row with a small nucleus keeps extra ids when another row of
the batch needs more.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
stated: "keeps, in each row, the smallest set of ids whose probabilities (after the temperature) sum to at least p" / "each row drawn independently"
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
            n_keep = int(((ranked.cumsum(dim=-1) < top_p).sum(dim=-1) + 1).max())   # ids needed to reach p
            cut = torch.ones_like(scaled, dtype=torch.bool).scatter(-1, order[:, :n_keep], False)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
