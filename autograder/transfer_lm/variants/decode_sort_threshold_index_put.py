"""Top-k reads the k-th best score from a full descending sort instead of topk; top-p unsorts the cut
with advanced indexing (cut[rows, order] = cut_ranked) instead of scatter, and draws with
F.softmax and torch.multinomial(...)[:, 0].

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.argmax(scores, dim=1)
    scaled = torch.div(scores, temperature)
    if top_k is not None:
        kth_best = scaled.sort(dim=1, descending=True).values[:, top_k - 1].unsqueeze(1)
        scaled = torch.where(scaled < kth_best, torch.full_like(scaled, float("-inf")), scaled)
    if top_p is not None:
        if not (0 < top_p <= 1):
            raise ValueError(f"top_p must be in (0, 1], not {top_p}")
        if top_p < 1:
            probs = F.softmax(scaled, dim=1)
            ranked, order = torch.sort(probs, dim=1, descending=True, stable=True)
            cut_ranked = (torch.cumsum(ranked, dim=1) - ranked) >= top_p
            cut = torch.zeros_like(cut_ranked)
            rows = torch.arange(scaled.size(0), device=scaled.device).unsqueeze(1)
            cut[rows, order] = cut_ranked
            scaled = scaled.masked_fill(cut, float("-inf"))
    return torch.multinomial(F.softmax(scaled, dim=1), 1, generator=generator)[:, 0]
