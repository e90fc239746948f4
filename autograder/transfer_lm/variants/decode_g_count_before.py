"""Takes the k-th largest from a full descending sort, and for top-p counts per row how many ranks have a running
sum still below p: the nucleus is those ranks plus one, written back to id order with an in-place scatter_.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-g
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=1)
    scaled = scores.div(temperature)
    if top_k is not None:
        kth_best = scaled.sort(dim=-1, descending=True).values[:, top_k - 1:top_k]
        scaled = torch.where(scaled < kth_best, float("-inf"), scaled)
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            below = (ranked.cumsum(dim=-1) < top_p).sum(dim=-1, keepdim=True)   # ranks that have not reached p
            rank = torch.arange(ranked.shape[-1], device=ranked.device).unsqueeze(0)
            keep_ranked = rank <= below
            keep = torch.empty_like(keep_ranked.expand_as(ranked)).scatter_(-1, order, keep_ranked.expand_as(ranked))
            scaled = scaled.masked_fill(keep.logical_not(), float("-inf"))
    return torch.multinomial(scaled.softmax(dim=-1), 1, generator=generator).squeeze(1)
