"""A correct solution that takes the top-k threshold from a full sort, counts per row how many ranked ids the
nucleus keeps ((running sum < p).sum() + 1), and gives every id its rank by scattering the ranks through the sort
order, keeping the ids whose rank is below the count.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-d
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.argmax(scores, dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        threshold = scaled.sort(dim=-1, descending=True).values[:, top_k - 1:top_k]
        scaled = scaled.masked_fill(scaled < threshold, float("-inf"))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.sort(torch.softmax(scaled, dim=-1), dim=-1, descending=True, stable=True)
            n_keep = (ranked.cumsum(dim=-1) < top_p).sum(dim=-1, keepdim=True) + 1
            ranks = torch.ones_like(order).cumsum(dim=-1) - 1
            rank_of_id = torch.empty_like(order).scatter_(-1, order, ranks)
            scaled = scaled.masked_fill(rank_of_id >= n_keep, float("-inf"))
    return torch.multinomial(torch.softmax(scaled, dim=-1), 1, generator=generator).squeeze(-1)
