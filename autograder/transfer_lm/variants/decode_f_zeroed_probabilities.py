"""Works on probabilities instead of -inf scores: top-k zeroes the probabilities below the k-th largest scaled
score (found with torch.kthvalue) and renormalises, top-p zeroes the probabilities of the ids ranked after the one
whose running sum reaches p, and torch.multinomial draws from the zeroed (renormalised) probabilities.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.argmax(scores, dim=-1)
    scaled = scores / temperature
    probs = torch.softmax(scaled, dim=-1)
    if top_k is not None:
        kth = torch.kthvalue(scaled, scaled.shape[-1] - top_k + 1, dim=-1, keepdim=True).values   # k-th largest
        probs = torch.where(scaled >= kth, probs, torch.zeros_like(probs))
        probs = probs / probs.sum(dim=-1, keepdim=True)
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = probs.sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            drop_ranked = reached.roll(1, dims=-1)
            drop_ranked[:, 0] = False                                          # the first id is always kept
            drop = torch.empty_like(drop_ranked).scatter_(-1, order, drop_ranked)
            probs = probs.masked_fill(drop, 0.0)
    return torch.multinomial(probs, 1, generator=generator).squeeze(1)
