"""Ranks the probabilities with a plain `sort(descending=True)` (no stable=True), assuming equal
probabilities stay in id order; PyTorch's CPU sort only does that for very short rows, so at the
notebook's vocabulary size the nucleus keeps arbitrary ids among tied ones instead of the smaller ids.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
contract: among equal probabilities the smaller id is ranked first
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
            ranked, order = torch.sort(torch.softmax(scaled, dim=-1), dim=-1, descending=True)
            ahead = ranked.cumsum(dim=-1) - ranked
            cut_ranked = ahead >= top_p
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
